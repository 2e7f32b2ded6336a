#ifndef VISION_TASKS_IMAGE_DECODERS_H
#define VISION_TASKS_IMAGE_DECODERS_H

#include <stddef.h>
#include <stdint.h>

/// Thin shims over Debian's libpng (its low-level API: libpng's errors longjmp, and the jump stays inside these
/// functions), libtiff (its error handlers, per file), libwebp and libheif (their error structs), all giving one
/// result: 8-bit RGB or RGBA rows, or a status and the library's message.

/// Result codes.
enum {
    VT_IMAGE_OK = 0,
    VT_IMAGE_CORRUPT = 1,      /* the library reported an error; message holds its text */
    VT_IMAGE_TOO_LARGE = 2,    /* header dimensions zero or above max_pixels; width and height hold them */
    VT_IMAGE_NO_MEMORY = 3,
    VT_IMAGE_UNSUPPORTED = 4,  /* a valid file this decoder does not turn into pixels; message says what */
};

/// A decoded image: tightly packed rows of `channels` (3: RGB, 4: RGBA) bytes a pixel, in the file's stored order
/// (no orientation applied, except by libheif, which applies HEIF's irot/imir itself). Owned by the caller after
/// success: free with vt_image_free.
typedef struct {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    int32_t channels;
    /// TIFF: the Orientation tag (1–8), 0 when absent. Others: 0.
    int32_t orientation;
    /// WebP: the EXIF chunk's payload as stored, or NULL; owned like pixels.
    uint8_t *exif;
    size_t exif_length;
    char message[200];
} vt_image;

/// PNG to 8-bit RGB(A) as stb_image gives it (MediaPipe's decoder): palette and grey expanded, tRNS to alpha,
/// 16-bit samples reduced to their high byte, gAMA/sRGB/iCCP/cHRM ignored (stb never applies them). Grey and grey +
/// alpha come out as RGB and RGBA. Images above max_pixels pixels are refused before pixel memory is allocated.
int vt_png_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_image *out);

/// TIFF's first directory through libtiff's RGBA interface, rows in stored order, alpha kept when the file has an
/// extra sample. Errors and warnings go to per-file handlers (never to stderr, never process-wide).
int vt_tiff_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_image *out);

/// WebP (lossy, lossless, extended; an animation's first frame as its canvas shows it) through libwebp, with the EXIF
/// chunk when there is one.
int vt_webp_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_image *out);

/// HEIF/HEIC/AVIF's primary image through libheif, its irot/imir transformations applied by libheif.
int vt_heif_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_image *out);

/// The libheif release loaded at run time ("1.15.1"): its YCbCr → RGB conversion differs between releases.
const char *vt_heif_version(void);

void vt_image_free(vt_image *image);

#endif
