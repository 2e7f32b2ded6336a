// libwebp through its animation decoder, as Pillow decodes every WebP (the truth for a format MediaPipe does not
// read): a still image is its single frame; an animation gives its first frame on the transparent canvas.
#include "image_decoders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

int vt_webp_decode(const uint8_t *data, size_t length, uint64_t max_pixels, vt_image *out) {
    memset(out, 0, sizeof(*out));
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, length, &features);
    if (code != VP8_STATUS_OK) {
        snprintf(out->message, 200, code == VP8_STATUS_NOT_ENOUGH_DATA ? "truncated: the data ends inside the header"
                                                                        : "not a readable WebP header (libwebp status %d)",
                 (int)code);
        return VT_IMAGE_CORRUPT;
    }
    out->width = (uint32_t)features.width;
    out->height = (uint32_t)features.height;
    if (features.width <= 0 || features.height <= 0 || (uint64_t)features.width * (uint64_t)features.height > max_pixels)
        return VT_IMAGE_TOO_LARGE;
    WebPData input = {data, length};
    WebPDemuxer *demuxer = WebPDemux(&input);
    if (!demuxer) {
        snprintf(out->message, 200, "truncated or malformed WebP container");
        return VT_IMAGE_CORRUPT;
    }
    uint32_t canvas_width = WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH);
    uint32_t canvas_height = WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT);
    out->width = canvas_width;
    out->height = canvas_height;
    if (canvas_width == 0 || canvas_height == 0 || (uint64_t)canvas_width * canvas_height > max_pixels) {
        WebPDemuxDelete(demuxer);
        return VT_IMAGE_TOO_LARGE;
    }
    WebPChunkIterator chunk;
    if (WebPDemuxGetChunk(demuxer, "EXIF", 1, &chunk)) {
        out->exif = malloc(chunk.chunk.size ? chunk.chunk.size : 1);
        if (out->exif) {
            memcpy(out->exif, chunk.chunk.bytes, chunk.chunk.size);
            out->exif_length = chunk.chunk.size;
        }
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    WebPDemuxDelete(demuxer);

    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return VT_IMAGE_CORRUPT;
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&input, &options);
    if (!decoder) {
        snprintf(out->message, 200, "truncated or malformed WebP data");
        vt_image_free(out);
        return VT_IMAGE_CORRUPT;
    }
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) || !canvas) {
        WebPAnimDecoderDelete(decoder);
        snprintf(out->message, 200, "truncated or corrupt WebP image data");
        vt_image_free(out);
        return VT_IMAGE_CORRUPT;
    }
    int channels = features.has_alpha ? 4 : 3;
    size_t count = (size_t)canvas_width * canvas_height;
    uint8_t *pixels = malloc(count * (size_t)channels);
    if (!pixels) {
        WebPAnimDecoderDelete(decoder);
        vt_image_free(out);
        return VT_IMAGE_NO_MEMORY;
    }
    if (channels == 4) {
        memcpy(pixels, canvas, count * 4);
    } else {
        for (size_t i = 0; i < count; i++) memcpy(pixels + 3 * i, canvas + 4 * i, 3);
    }
    WebPAnimDecoderDelete(decoder);
    out->pixels = pixels;
    out->channels = channels;
    return VT_IMAGE_OK;
}
