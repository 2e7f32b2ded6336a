// libtiff over bytes in memory. Its errors and warnings go to handlers given per file (TIFFOpenOptions, libtiff
// 4.5): the process-wide handlers would print to stderr and are shared with every other libtiff user.
#include "image_decoders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t position;
    char *message;
} tiff_source;

static tmsize_t read_proc(thandle_t handle, void *buffer, tmsize_t size) {
    tiff_source *source = (tiff_source *)handle;
    if (size < 0) return -1;
    size_t left = source->length - source->position;
    size_t count = (size_t)size < left ? (size_t)size : left;
    memcpy(buffer, source->data + source->position, count);
    source->position += count;
    return (tmsize_t)count;
}

static tmsize_t write_proc(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle;
    (void)buffer;
    (void)size;
    return -1;
}

static toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
    tiff_source *source = (tiff_source *)handle;
    uint64_t base = whence == SEEK_CUR ? source->position : whence == SEEK_END ? source->length : 0;
    uint64_t target = base + offset;
    // libtiff seeks to offsets read from the file; past the end, reads then return nothing.
    if (target < base) return (toff_t)-1;
    source->position = target > source->length ? source->length : (size_t)target;
    return source->position;
}

static int close_proc(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t size_proc(thandle_t handle) { return ((tiff_source *)handle)->length; }

static int map_proc(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;
}

static void unmap_proc(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

static int on_error(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    (void)module;
    tiff_source *source = (tiff_source *)user;
    if (source->message[0] == 0) vsnprintf(source->message, 200, format, arguments);
    return 1;
}

static int on_warning(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    (void)user;
    (void)module;
    (void)format;
    (void)arguments;
    return 1;
}

int vt_tiff_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_image *out) {
    memset(out, 0, sizeof(*out));
    tiff_source source = {data, length, 0, out->message};
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return VT_IMAGE_NO_MEMORY;
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, &source);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, &source);
    // One allocation of libtiff's own (a strip, a tile, a tag's array) at most the budget's RGBA bytes.
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)(max_pixels * 4 + (1 << 20)));
    // "m": no memory mapping (there is no file), "r": read.
    TIFF *tiff = TIFFClientOpenExt("image.tiff", "rm", &source, read_proc, write_proc, seek_proc, close_proc, size_proc,
                                   map_proc, unmap_proc, options);
    TIFFOpenOptionsFree(options);
    if (!tiff) {
        if (out->message[0] == 0) snprintf(out->message, 200, "not a readable TIFF");
        return VT_IMAGE_CORRUPT;
    }
    uint32_t width = 0, height = 0;
    uint16_t orientation = 0, extra_count = 0;
    uint16_t *extra_types = NULL;
    TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height);
    out->width = width;
    out->height = height;
    if (width == 0 || height == 0 || (uint64_t)width * height > max_pixels) {
        TIFFClose(tiff);
        return VT_IMAGE_TOO_LARGE;
    }
    if (TIFFGetField(tiff, TIFFTAG_ORIENTATION, &orientation) && orientation >= 1 && orientation <= 8)
        out->orientation = orientation;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types);
    // libtiff's RGBA interface premultiplies unassociated (straight) alpha; Pillow, the truth for TIFF, keeps it
    // straight. Declared associated in the in-memory directory, the samples pass through as stored.
    if (extra_count == 1 && extra_types && extra_types[0] == EXTRASAMPLE_UNASSALPHA) {
        uint16_t associated = EXTRASAMPLE_ASSOCALPHA;
        TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, &associated);
    }
    char why[1024] = {0};
    if (!TIFFRGBAImageOK(tiff, why)) {
        snprintf(out->message, 200, "%s", why);
        TIFFClose(tiff);
        return VT_IMAGE_UNSUPPORTED;
    }
    TIFFRGBAImage image;
    if (!TIFFRGBAImageBegin(&image, tiff, 1, why)) {
        if (out->message[0] == 0) snprintf(out->message, 200, "%s", why);
        TIFFClose(tiff);
        return VT_IMAGE_CORRUPT;
    }
    // Rows as stored: asked for the file's own orientation, libtiff flips nothing (it would otherwise flip rows or
    // columns for some tags and transpose for none); the caller applies the tag as for a JPEG's EXIF.
    image.req_orientation = image.orientation;
    uint32_t *raster = malloc((size_t)width * height * sizeof(uint32_t));
    if (!raster) {
        TIFFRGBAImageEnd(&image);
        TIFFClose(tiff);
        return VT_IMAGE_NO_MEMORY;
    }
    int ok = TIFFRGBAImageGet(&image, raster, width, height);
    TIFFRGBAImageEnd(&image);
    TIFFClose(tiff);
    if (!ok) {
        free(raster);
        if (out->message[0] == 0) snprintf(out->message, 200, "the image data could not be read");
        return VT_IMAGE_CORRUPT;
    }
    // ABGR words, R in the low byte: RGBA bytes on a little-endian host, read portably through the TIFFGet macros.
    int channels = extra_count > 0 ? 4 : 3;
    size_t count = (size_t)width * height;
    uint8_t *pixels = malloc(count * (size_t)channels);
    if (!pixels) {
        free(raster);
        return VT_IMAGE_NO_MEMORY;
    }
    for (size_t i = 0; i < count; i++) {
        uint32_t word = raster[i];
        uint8_t *p = pixels + i * (size_t)channels;
        p[0] = (uint8_t)TIFFGetR(word);
        p[1] = (uint8_t)TIFFGetG(word);
        p[2] = (uint8_t)TIFFGetB(word);
        if (channels == 4) p[3] = (uint8_t)TIFFGetA(word);
    }
    free(raster);
    out->pixels = pixels;
    out->channels = channels;
    return VT_IMAGE_OK;
}
