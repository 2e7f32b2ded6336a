// libpng's low-level read API, not its simplified API (png_image_*): asked for 8-bit sRGB, the simplified API
// takes 16-bit samples as linear light and converts them, and applies a file's gAMA, where stb_image (MediaPipe's
// decoder, the truth) keeps a 16-bit sample's high byte and ignores gAMA, sRGB, iCCP and cHRM. The low-level API
// transforms only what it is asked to: expand (palette → RGB, grey below 8 bits scaled by bit replication as stb
// scales it, tRNS → alpha), strip 16 → 8 (the high byte, after tRNS is matched on the 16-bit values, as stb does),
// grey → RGB. libpng reports errors by longjmp to the png_jmpbuf set in this function, so no jump crosses Swift.
#include "image_decoders.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t position;
    char *message;
} png_source;

static void read_bytes(png_structp png, png_bytep target, png_size_t count) {
    png_source *source = (png_source *)png_get_io_ptr(png);
    if (count > source->length - source->position) png_error(png, "truncated: the data ends inside the image");
    memcpy(target, source->data + source->position, count);
    source->position += count;
}

static void on_error(png_structp png, png_const_charp text) {
    png_source *source = (png_source *)png_get_error_ptr(png);
    // The first message is the cause (a later one can only follow from it).
    if (source->message[0] == 0) snprintf(source->message, 200, "%s", text);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

int vt_png_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_image *out) {
    memset(out, 0, sizeof(*out));
    png_source source = {data, length, 0, out->message};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, on_error, on_warning);
    if (!png) return VT_IMAGE_NO_MEMORY;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return VT_IMAGE_NO_MEMORY;
    }
    // Volatile: assigned between setjmp and a longjmp back to it.
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    volatile int status = VT_IMAGE_CORRUPT;
    if (setjmp(png_jmpbuf(png))) {
        free(pixels);
        free(rows);
        out->pixels = NULL;
        png_destroy_read_struct(&png, &info, NULL);
        return status;
    }
    png_set_read_fn(png, &source, read_bytes);
    // libpng's own width/height limit (a million) is below the pixel budget's shapes: the budget decides.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    out->width = width;
    out->height = height;
    if (width == 0 || height == 0 || (uint64_t)width * height > max_pixels) {
        status = VT_IMAGE_TOO_LARGE;
        png_longjmp(png, 1);
    }
    int colour = png_get_color_type(png, info);
    png_set_expand(png);
    png_set_strip_16(png);
    if (!(colour & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    if (channels != 3 && channels != 4) {
        snprintf(out->message, 200, "unexpected %d channels after expansion", channels);
        png_longjmp(png, 1);
    }
    // Within the budget (2^28 pixels) × 4 bytes: no overflow in 64 bits, nor in size_t on 64-bit hosts.
    size_t row_bytes = (size_t)width * (size_t)channels;
    if (png_get_rowbytes(png, info) != row_bytes) {
        snprintf(out->message, 200, "unexpected row size");
        png_longjmp(png, 1);
    }
    status = VT_IMAGE_NO_MEMORY;
    pixels = malloc(row_bytes * height);
    rows = malloc(sizeof(png_bytep) * height);
    if (!pixels || !rows) png_longjmp(png, 1);
    status = VT_IMAGE_CORRUPT;
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + (size_t)y * row_bytes;
    png_read_image(png, rows);
    // To IEND, as stb_image reads it: a file cut after its image data is an error there too. Into `info`, so that an
    // eXIf chunk after the image data (where some writers put it) is kept as one before it is.
    png_read_end(png, info);
    // The eXIf chunk's TIFF structure, for its orientation tag (the caller applies it as a JPEG's; stb_image and so
    // MediaPipe 1.2.3 ignore it, see ImageDecoder.decodePNG). Not kept if there is no memory for it.
    png_uint_32 exif_length = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(png, info, &exif_length, &exif) != 0 && exif && exif_length > 0) {
        out->exif = malloc(exif_length);
        if (out->exif) {
            memcpy(out->exif, exif, exif_length);
            out->exif_length = exif_length;
        }
    }
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    out->pixels = pixels;
    out->channels = channels;
    return VT_IMAGE_OK;
}

void vt_image_free(vt_image *image) {
    free(image->pixels);
    free(image->exif);
    image->pixels = NULL;
    image->exif = NULL;
}
