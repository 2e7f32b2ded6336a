// libjpeg(-turbo) behind an API that cannot exit or longjmp past its caller: the error manager's error_exit
// jumps back to a setjmp in the same C frame that called libjpeg.
#include "jpeg_decoder.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    char *message;
    /// Whether warnings that mean lost image data end the decode (VT_JPEG_DAMAGED) instead of being decoded past.
    int strict;
    /// Set when such a warning ended the decode.
    int damaged;
    struct jpeg_progress_mgr progress;
} error_manager;

/// A progressive JPEG has about ten scans; every scan is a pass over the whole coefficient buffer, so a small file
/// with thousands of tiny scans costs minutes. 500 is libjpeg-turbo's own limit in its fuzzers and TurboJPEG's
/// TJPARAM_SCANLIMIT advice.
enum { maximum_scan_count = 500 };

static void on_error(j_common_ptr info) {
    error_manager *errors = (error_manager *)info->err;
    if (errors->message) (*info->err->format_message)(info, errors->message);
    longjmp(errors->escape, 1);
}

/// The warnings after which libjpeg goes on with made-up data: the entropy-coded data ended early (the rest of the
/// image is filled as if its coefficients were zero) or could not be decoded (blocks up to the next restart marker
/// are lost). Other warnings (extraneous bytes between markers, an unknown JFIF revision, an odd progression script,
/// a bad ICC chunk) leave the decoded pixels intact; real cameras write some of them.
static const char *damage_kind(int code) {
    switch (code) {
    case JWRN_JPEG_EOF: return "truncated: premature end of JPEG data";
    // A marker while the decoder still needs bits: the scan was cut short, or corrupt codes ran past its end.
    case JWRN_HIT_MARKER: return "damaged scan: entropy-coded data ends early (truncated or corrupt)";
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE: return "damaged scan: corrupt entropy-coded data";
    case JWRN_MUST_RESYNC: return "damaged scan: lost restart marker sync";
    default: return NULL;
    }
}

static void on_message(j_common_ptr info, int level) {
    error_manager *errors = (error_manager *)info->err;
    if (level >= 0 || !errors->strict) return;  // trace messages, and warnings a lenient caller accepted
    const char *kind = damage_kind(info->err->msg_code);
    if (!kind) return;
    errors->damaged = 1;
    if (errors->message) {
        char text[JMSG_LENGTH_MAX];
        (*info->err->format_message)(info, text);
        snprintf(errors->message, 200, "%s (libjpeg: %s)", kind, text);
    }
    longjmp(errors->escape, 1);
}

static void on_output_message(j_common_ptr info) { (void)info; }

/// Called by libjpeg between rows and scans: refuses a scan count no real image has (see maximum_scan_count).
static void on_progress(j_common_ptr info) {
    if (!info->is_decompressor) return;
    j_decompress_ptr decompress = (j_decompress_ptr)info;
    if (decompress->input_scan_number > maximum_scan_count) {
        error_manager *errors = (error_manager *)info->err;
        if (errors->message)
            snprintf(errors->message, 200, "more than %d scans (%d): refused as a denial of service", maximum_scan_count,
                     decompress->input_scan_number);
        longjmp(errors->escape, 1);
    }
}

/// Hooks the scan limit in; after jpeg_create_decompress, which clears the progress pointer.
static void install_progress(struct jpeg_decompress_struct *info, error_manager *errors) {
    errors->progress.progress_monitor = on_progress;
    info->progress = &errors->progress;
}

/// libjpeg's standard error manager with the exits above, messages into `message` (may be NULL).
static struct jpeg_error_mgr *install_errors(error_manager *errors, char *message, int strict) {
    struct jpeg_error_mgr *base = jpeg_std_error(&errors->base);
    errors->base.error_exit = on_error;
    errors->base.emit_message = on_message;
    errors->base.output_message = on_output_message;
    errors->message = message;
    errors->strict = strict;
    errors->damaged = 0;
    return base;
}

/// A copy of the first APP1 "Exif\0\0" segment saved by jpeg_save_markers, or NULL (none, or no memory).
static uint8_t *copy_exif(struct jpeg_decompress_struct *info, size_t *length) {
    for (jpeg_saved_marker_ptr marker = info->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 6 && memcmp(marker->data, "Exif\0\0", 6) == 0) {
            uint8_t *copy = malloc(marker->data_length);
            if (copy) {
                memcpy(copy, marker->data, marker->data_length);
                *length = marker->data_length;
            }
            return copy;
        }
    }
    return NULL;
}

int vt_jpeg_read_size(const uint8_t *data, size_t length, uint32_t *width, uint32_t *height, char message[200]) {
    struct jpeg_decompress_struct info;
    error_manager errors;
    memset(&info, 0, sizeof info);
    info.err = install_errors(&errors, message, 0);
    if (setjmp(errors.escape)) {
        jpeg_destroy_decompress(&info);
        return VT_JPEG_CORRUPT;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    *width = info.image_width;
    *height = info.image_height;
    jpeg_destroy_decompress(&info);
    return VT_JPEG_OK;
}

int vt_jpeg_decode(const uint8_t *data, size_t length, uint64_t max_pixels, int strict, vt_jpeg_image *out) {
    struct jpeg_decompress_struct info;
    error_manager errors;
    // volatile: these change between setjmp and a possible longjmp and are read after it.
    uint8_t *volatile pixels = NULL;
    uint8_t *volatile exif = NULL;
    memset(&info, 0, sizeof info);
    memset(out, 0, sizeof *out);
    info.err = install_errors(&errors, out->message, strict);
    if (setjmp(errors.escape)) {
        free(pixels);
        free(exif);
        jpeg_destroy_decompress(&info);
        return ((volatile error_manager *)&errors)->damaged ? VT_JPEG_DAMAGED : VT_JPEG_CORRUPT;
    }
    jpeg_create_decompress(&info);
    install_progress(&info, &errors);
    jpeg_mem_src(&info, data, (unsigned long)length);
    jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&info, TRUE);
    if ((uint64_t)info.image_width * (uint64_t)info.image_height > max_pixels) {
        snprintf(out->message, sizeof out->message, "%u x %u pixels is above the limit", info.image_width, info.image_height);
        jpeg_destroy_decompress(&info);
        return VT_JPEG_TOO_LARGE;
    }
    exif = copy_exif(&info, &out->exif_length);
    info.out_color_space = JCS_RGB;
    jpeg_start_decompress(&info);
    // No scaling is asked for, so the output is the header's size; checked again because the allocation trusts it.
    if ((uint64_t)info.output_width * (uint64_t)info.output_height > max_pixels) {
        snprintf(out->message, sizeof out->message, "%u x %u pixels is above the limit", info.output_width, info.output_height);
        free(exif);
        jpeg_destroy_decompress(&info);
        return VT_JPEG_TOO_LARGE;
    }
    const size_t row_bytes = (size_t)info.output_width * 3;
    pixels = malloc(row_bytes * info.output_height + 1);
    if (!pixels) {
        free(exif);
        jpeg_destroy_decompress(&info);
        return VT_JPEG_NO_MEMORY;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + row_bytes * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    out->pixels = pixels;
    out->exif = exif;
    out->width = info.output_width;
    out->height = info.output_height;
    jpeg_destroy_decompress(&info);
    return VT_JPEG_OK;
}

void vt_jpeg_free(vt_jpeg_image *image) {
    free(image->pixels);
    free(image->exif);
    image->pixels = NULL;
    image->exif = NULL;
}

// The decompressor outlives vt_jpeg_read_coefficients: its coefficient arrays are handed out in place (no copy of
// what is 3 bytes per pixel), so it and its error manager live on the heap until vt_jpeg_free_coefficients.
typedef struct {
    struct jpeg_decompress_struct info;
    error_manager errors;
} coefficient_owner;

void vt_jpeg_free_coefficients(vt_jpeg_coefficients *coefficients) {
    for (int c = 0; c < 4; c++) {
        free(coefficients->components[c].block_rows);
        coefficients->components[c].block_rows = NULL;
    }
    free(coefficients->exif);
    coefficients->exif = NULL;
    coefficient_owner *owner = coefficients->owner;
    if (owner) {
        jpeg_destroy_decompress(&owner->info);
        free(owner);
        coefficients->owner = NULL;
    }
}

int vt_jpeg_read_coefficients(const uint8_t *data, size_t length, uint64_t max_pixels, int strict,
                              vt_jpeg_coefficients *out) {
    memset(out, 0, sizeof *out);
    coefficient_owner *owner = calloc(1, sizeof *owner);
    if (!owner) return VT_JPEG_NO_MEMORY;
    out->owner = owner;
    struct jpeg_decompress_struct *info = &owner->info;
    info->err = install_errors(&owner->errors, out->message, strict);
    if (setjmp(owner->errors.escape)) {
        const int damaged = owner->errors.damaged;  // read before the owner is freed
        vt_jpeg_free_coefficients(out);
        return damaged ? VT_JPEG_DAMAGED : VT_JPEG_CORRUPT;
    }
    jpeg_create_decompress(info);
    install_progress(info, &owner->errors);
    jpeg_mem_src(info, data, (unsigned long)length);
    jpeg_save_markers(info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(info, TRUE);
    if ((uint64_t)info->image_width * (uint64_t)info->image_height > max_pixels) {
        snprintf(out->message, sizeof out->message, "%u x %u pixels is above the limit", info->image_width, info->image_height);
        vt_jpeg_free_coefficients(out);
        return VT_JPEG_TOO_LARGE;
    }
    if (info->data_precision != 8 || !(info->num_components == 1 || info->num_components == 3 || info->num_components == 4)) {
        vt_jpeg_free_coefficients(out);
        return VT_JPEG_UNSUPPORTED;
    }
    out->exif = copy_exif(info, &out->exif_length);
    out->width = info->image_width;
    out->height = info->image_height;
    out->component_count = info->num_components;
    out->saw_jfif = info->saw_JFIF_marker ? 1 : 0;
    out->adobe_transform = info->saw_Adobe_marker ? info->Adobe_transform : -1;
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(info);
    for (int c = 0; c < info->num_components; c++) {
        jpeg_component_info *component = &info->comp_info[c];
        vt_jpeg_component *target = &out->components[c];
        JQUANT_TBL *table = component->quant_table;
        if (!table && component->quant_tbl_no >= 0 && component->quant_tbl_no < NUM_QUANT_TBLS)
            table = info->quant_tbl_ptrs[component->quant_tbl_no];
        if (!table) {
            snprintf(out->message, sizeof out->message, "component %d has no quantization table", c);
            vt_jpeg_free_coefficients(out);
            return VT_JPEG_CORRUPT;
        }
        for (int k = 0; k < 64; k++) target->quantization[k] = table->quantval[k];
        target->width_in_blocks = component->width_in_blocks;
        target->height_in_blocks = component->height_in_blocks;
        target->horizontal_sampling = (uint8_t)component->h_samp_factor;
        target->vertical_sampling = (uint8_t)component->v_samp_factor;
        target->id = component->component_id;
        target->block_rows = malloc(sizeof(int16_t *) * (component->height_in_blocks + 1));
        if (!target->block_rows) {
            vt_jpeg_free_coefficients(out);
            return VT_JPEG_NO_MEMORY;
        }
        // Row by row: libjpeg's default memory manager keeps every virtual array in memory (there is no backing
        // store to swap to), so a row's address stays put after the access that returns it.
        for (JDIMENSION row = 0; row < component->height_in_blocks; row++) {
            JBLOCKARRAY rows = (*info->mem->access_virt_barray)((j_common_ptr)info, arrays[c], row, 1, FALSE);
            target->block_rows[row] = rows[0][0];
        }
    }
    return VT_JPEG_OK;
}
