/* phi4_pixels.c — IMAGE MODEL_DIR OUT: Tessera's Phi-4-multimodal HD pixel values of IMAGE (the
 * model's preprocessor_config.json) written to OUT as raw little-endian f32 [views, 3, S, S],
 * global view first. The compiler oracles' input for vision.main (tests/phi4_bundle_oracle_test.sh):
 * the slim fixtures keep the reference's sha256 of these values, not the values, and the runner
 * checks the file against that sha256 before using it. Built only on demand (tests/tests.cmake). */
#include "base/error.h"
#include "models/phi4_mm/phi4_image_processor.h"
#include "tessera.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: phi4_pixels IMAGE MODEL_DIR OUT\n");
        return 2;
    }
    ts_error err;
    ts_image img = {0};
    ts_phi4_hd_settings s;
    ts_phi4_hd_image im;
    ts_status st = ts_image_load(argv[1], NULL, &img, &err);
    if (st == TS_OK) st = ts_phi4_hd_settings_load(argv[2], &s, &err);
    if (st == TS_OK) st = ts_phi4_hd_preprocess(img.rgb, img.width, img.height, s.crop, s.patch, s.max_crops, &im, &err);
    ts_image_free(&img);
    if (st != TS_OK) {
        fprintf(stderr, "phi4_pixels: %s\n", err.message);
        return 1;
    }
    size_t n = (size_t)im.views * 3 * (size_t)im.crop * (size_t)im.crop;
    FILE *f = fopen(argv[3], "wb");
    bool ok = f && fwrite(im.pixels, sizeof(float), n, f) == n;
    if (f) ok = fclose(f) == 0 && ok;
    ts_phi4_hd_free(&im);
    if (!ok) fprintf(stderr, "phi4_pixels: cannot write %s\n", argv[3]);
    return ok ? 0 : 1;
}
