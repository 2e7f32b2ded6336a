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
    VT_JPEG_UNSUPPORTED = 4,  /* vt_jpeg_read_coefficients only: not 8-bit, or not 1, 3 or 4 components */
    VT_JPEG_DAMAGED = 5,      /* strict only: the entropy-coded data is truncated or corrupt; message names which */
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
/// caller's frames. With strict non-zero, the warnings that mean lost image data (premature end of the data, a bad
/// Huffman or arithmetic code, a lost restart marker) end the decode with VT_JPEG_DAMAGED; with strict zero they
/// are decoded past as libjpeg does (missing blocks come out flat). Other warnings are ignored, never printed.
/// Images with more than max_pixels pixels are refused before any pixel memory is allocated, and files with more
/// than 500 scans are refused (VT_JPEG_CORRUPT) before they cost a pass per scan.
int vt_jpeg_decode(const uint8_t *data, size_t length, uint64_t max_pixels, int strict, vt_jpeg_image *out);

/// Reads only the header: width and height, or an error code.
int vt_jpeg_read_size(const uint8_t *data, size_t length, uint32_t *width, uint32_t *height, char message[200]);

void vt_jpeg_free(vt_jpeg_image *image);

/// One component's quantized DCT coefficients as the entropy decoder leaves them.
typedef struct {
    /// height_in_blocks pointers to rows of width_in_blocks blocks, 64 coefficients each in natural (not zigzag)
    /// order, inside libjpeg's own (in-memory) coefficient arrays: valid until vt_jpeg_free_coefficients.
    int16_t **block_rows;
    /// The component's quantization table, natural order.
    uint16_t quantization[64];
    uint32_t width_in_blocks;
    uint32_t height_in_blocks;
    uint8_t horizontal_sampling;
    uint8_t vertical_sampling;
    int32_t id;
} vt_jpeg_component;

/// A JPEG up to, not including, the inverse DCT: what a decoder other than libjpeg's own needs to finish it.
typedef struct {
    uint32_t width;
    uint32_t height;
    int32_t component_count;
    vt_jpeg_component components[4];
    /// Whether an APP0 JFIF marker was seen, and the APP14 Adobe transform (-1 without that marker).
    int32_t saw_jfif;
    int32_t adobe_transform;
    uint8_t *exif;
    size_t exif_length;
    char message[200];
    /// The decompressor that owns the coefficient arrays (opaque).
    void *owner;
} vt_jpeg_coefficients;

/// Entropy-decodes JPEG bytes (baseline, progressive, arithmetic; libjpeg-turbo) into quantized coefficients. Same
/// error handling and size limit as vt_jpeg_decode; VT_JPEG_UNSUPPORTED leaves nothing to free.
int vt_jpeg_read_coefficients(const uint8_t *data, size_t length, uint64_t max_pixels, int strict,
                              vt_jpeg_coefficients *out);

void vt_jpeg_free_coefficients(vt_jpeg_coefficients *coefficients);

#endif
