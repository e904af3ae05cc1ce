// iron's own weighted RMSNorm: mlir-aie's norm/rms_norm.cc has rms_norm and rms_norm_eps,
// no weight. y[i] = x[i] * (1 / sqrt(mean(x^2) + eps)) * w[i], sums in float, one bf16
// rounding per output. Scalar code; the inverse square root is three Newton steps from
// the classic bit-level estimate (no libm on the core).
#include <stdint.h>
#include <aie_api/aie.hpp>

static inline float iron_invsqrt(float v) {
  union {
    float f;
    uint32_t u;
  } b = {v};
  b.u = 0x5f3759dfu - (b.u >> 1);
  float y = b.f;
  for (int i = 0; i < 3; i++)
    y = y * (1.5f - 0.5f * v * y * y);
  return y;
}

extern "C" {
void weighted_rms_norm(bfloat16 *x, bfloat16 *w, bfloat16 *y, int32_t cols,
                       float eps) {
  float sum = 0.0f;
  for (int32_t i = 0; i < cols; i++) {
    float v = x[i];
    sum += v * v;
  }
  const float inv = iron_invsqrt(sum / (float)cols + eps);
  for (int32_t i = 0; i < cols; i++) {
    float v = x[i];
    float g = w[i];
    y[i] = (bfloat16)(v * inv * g);
  }
}
} // extern "C"
