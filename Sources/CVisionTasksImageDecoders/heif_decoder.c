// libheif's primary image as 8-bit interleaved RGB(A), with libheif's own colour conversion and its irot/imir
// transformations applied (libheif's default; the HEIF spec has readers then ignore an EXIF orientation, as
// pillow-heif does). libheif reports errors in returned structs; this keeps their messages.
#include "image_decoders.h"

#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(struct heif_error error, vt_image *out) {
    if (error.code == heif_error_Ok) return 0;
    snprintf(out->message, 200, "%s", error.message ? error.message : "libheif error");
    return 1;
}

static int status_of(struct heif_error error) {
    switch (error.code) {
    case heif_error_Memory_allocation_error: return VT_IMAGE_NO_MEMORY;
    case heif_error_Unsupported_filetype:
    case heif_error_Unsupported_feature: return VT_IMAGE_UNSUPPORTED;
    default: return VT_IMAGE_CORRUPT;
    }
}

int vt_heif_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_image *out) {
    memset(out, 0, sizeof(*out));
    struct heif_context *context = heif_context_alloc();
    if (!context) return VT_IMAGE_NO_MEMORY;
    struct heif_error error = heif_context_read_from_memory_without_copy(context, data, length, NULL);
    if (failed(error, out)) {
        heif_context_free(context);
        return status_of(error);
    }
    struct heif_image_handle *handle = NULL;
    error = heif_context_get_primary_image_handle(context, &handle);
    if (failed(error, out)) {
        heif_context_free(context);
        return status_of(error);
    }
    // The size after transformations (ispe, turned by irot), before anything is decoded.
    int width = heif_image_handle_get_width(handle), height = heif_image_handle_get_height(handle);
    out->width = width > 0 ? (uint32_t)width : 0;
    out->height = height > 0 ? (uint32_t)height : 0;
    if (width <= 0 || height <= 0 || (uint64_t)width * (uint64_t)height > max_pixels) {
        heif_image_handle_release(handle);
        heif_context_free(context);
        return VT_IMAGE_TOO_LARGE;
    }
    int alpha = heif_image_handle_has_alpha_channel(handle);
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) {
        heif_image_handle_release(handle);
        heif_context_free(context);
        return VT_IMAGE_NO_MEMORY;
    }
    options->convert_hdr_to_8bit = 1;
    struct heif_image *image = NULL;
    error = heif_decode_image(handle, &image, heif_colorspace_RGB,
                              alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options);
    heif_decoding_options_free(options);
    heif_image_handle_release(handle);
    if (failed(error, out)) {
        heif_context_free(context);
        return status_of(error);
    }
    int decoded_width = heif_image_get_width(image, heif_channel_interleaved);
    int decoded_height = heif_image_get_height(image, heif_channel_interleaved);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int channels = alpha ? 4 : 3;
    // The coded image can differ from the handle's announced size; only the decoded size is trusted, within budget.
    if (!plane || decoded_width <= 0 || decoded_height <= 0 ||
        (uint64_t)decoded_width * (uint64_t)decoded_height > max_pixels || stride < decoded_width * channels) {
        heif_image_release(image);
        heif_context_free(context);
        snprintf(out->message, 200, "the decoded image has no usable pixel plane");
        return VT_IMAGE_CORRUPT;
    }
    size_t row_bytes = (size_t)decoded_width * (size_t)channels;
    uint8_t *pixels = malloc(row_bytes * (size_t)decoded_height);
    if (!pixels) {
        heif_image_release(image);
        heif_context_free(context);
        return VT_IMAGE_NO_MEMORY;
    }
    for (int y = 0; y < decoded_height; y++) memcpy(pixels + (size_t)y * row_bytes, plane + (size_t)y * (size_t)stride, row_bytes);
    heif_image_release(image);
    heif_context_free(context);
    out->pixels = pixels;
    out->width = (uint32_t)decoded_width;
    out->height = (uint32_t)decoded_height;
    out->channels = channels;
    return VT_IMAGE_OK;
}

const char *vt_heif_version(void) { return heif_get_version(); }
