#ifndef VISION_TASKS_JPEG_DECODER_H
#define VISION_TASKS_JPEG_DECODER_H

#include <stddef.h>
#include <stdint.h>

/// Result codes of vt_jpeg_decode.
enum {
    VT_JPEG_OK = 0,
    VT_JPEG_CORRUPT = 1,      /* libjpeg reported an error; message holds its text */
    VT_JPEG_TOO_LARGE = 2,    /* header dimensions above max_pixels */
    VT_JPEG_NO_MEMORY = 3,
};

/// Decoded JPEG: tightly packed RGB8 rows, owned by the caller after success (free with vt_jpeg_free).
typedef struct {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    /// The APP1 (EXIF) segment as stored, or NULL; owned like pixels.
    uint8_t *exif;
    size_t exif_length;
    char message[200];
} vt_jpeg_image;

/// Decodes JPEG bytes to RGB. libjpeg's fatal errors longjmp back inside this C function, never across the
/// caller's frames, and warnings are ignored. Images with more than max_pixels pixels are refused before any
/// pixel memory is allocated.
int vt_jpeg_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_jpeg_image *out);

/// Reads only the header: width and height, or an error code.
int vt_jpeg_read_size(const uint8_t *data, size_t length, uint32_t *width, uint32_t *height, char message[200]);

void vt_jpeg_free(vt_jpeg_image *image);

#endif
