// iron's own integer elementwise kernels: mlir-aie's add.cc / mul.cc are bf16 only
// (python/iron/kernels/eltwise.py: "Only the bf16 variant is available"). Plain scalar
// loops, which Peano may vectorise; integers wrap like the numpy reference (the sums and
// products are formed unsigned, where overflow is defined). Compiled with the same
// command line as mlir-aie's kernels.
#include <stdint.h>

extern "C" {

void eltwise_add_i16_vector(int16_t *__restrict a, int16_t *__restrict b,
                            int16_t *__restrict c, int32_t size) {
  for (int32_t i = 0; i < size; i++)
    c[i] = (int16_t)((uint16_t)a[i] + (uint16_t)b[i]);
}

void eltwise_add_i32_vector(int32_t *__restrict a, int32_t *__restrict b,
                            int32_t *__restrict c, int32_t size) {
  for (int32_t i = 0; i < size; i++)
    c[i] = (int32_t)((uint32_t)a[i] + (uint32_t)b[i]);
}

void eltwise_mul_i16_vector(int16_t *__restrict a, int16_t *__restrict b,
                            int16_t *__restrict c, int32_t size) {
  for (int32_t i = 0; i < size; i++)
    c[i] = (int16_t)((uint32_t)(uint16_t)a[i] * (uint32_t)(uint16_t)b[i]);
}

void eltwise_mul_i32_vector(int32_t *__restrict a, int32_t *__restrict b,
                            int32_t *__restrict c, int32_t size) {
  for (int32_t i = 0; i < size; i++)
    c[i] = (int32_t)((uint32_t)a[i] * (uint32_t)b[i]);
}

} // extern "C"
