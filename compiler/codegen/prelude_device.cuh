// Brickyard device prelude for NVRTC. The host harness has its own version of everything
// here (prelude_host.h); generated kernels use only what these two files define.
#define BY_HD __device__ __forceinline__
#define BY_DEVICE __device__ __forceinline__
#define BY_KERNEL extern "C" __global__
// All shared memory of a block is carved from one dynamic buffer.
#define BY_SHARED_BUFFER(name) extern __shared__ __align__(16) unsigned char name[]

#include "prelude_common.h"

// Grid-wide barrier for kernels launched cooperatively (all blocks resident).
__device__ unsigned int by_grid_bar_count;
__device__ volatile unsigned int by_grid_bar_gen;
BY_DEVICE void by_grid_sync() {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    unsigned int gen = by_grid_bar_gen;
    __threadfence();
    if (atomicAdd(&by_grid_bar_count, 1u) == blocks - 1u) {
      by_grid_bar_count = 0u;
      __threadfence();
      by_grid_bar_gen = gen + 1u;
    } else {
      while (by_grid_bar_gen == gen) { }
    }
    __threadfence();
  }
  __syncthreads();
}
