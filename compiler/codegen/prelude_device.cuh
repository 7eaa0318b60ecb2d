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

// ---- vector memory (docs/prelude.md) ------------------------------------------------------------
// 16-byte (8-byte for v2) accesses; the address must be aligned to the access size.
BY_DEVICE float4 by_ld_global_v4(const float* p) { return *reinterpret_cast<const float4*>(p); }
BY_DEVICE int4 by_ld_global_v4(const int* p) { return *reinterpret_cast<const int4*>(p); }
BY_DEVICE uint4 by_ld_global_v4(const unsigned int* p) { return *reinterpret_cast<const uint4*>(p); }
BY_DEVICE uint4 by_ld_global_b128(const void* p) { return *reinterpret_cast<const uint4*>(p); }
BY_DEVICE float2 by_ld_global_v2(const float* p) { return *reinterpret_cast<const float2*>(p); }
BY_DEVICE void by_st_global_v4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }
BY_DEVICE void by_st_global_v4(int* p, int4 v) { *reinterpret_cast<int4*>(p) = v; }
BY_DEVICE void by_st_global_v4(unsigned int* p, uint4 v) { *reinterpret_cast<uint4*>(p) = v; }
BY_DEVICE void by_st_global_b128(void* p, uint4 v) { *reinterpret_cast<uint4*>(p) = v; }
BY_DEVICE void by_st_global_v2(float* p, float2 v) { *reinterpret_cast<float2*>(p) = v; }

// The shared state space address of a generic pointer into shared memory.
BY_DEVICE unsigned int by_smem_addr(const void* p) { return (unsigned int)__cvta_generic_to_shared(p); }

// ---- asynchronous copies global -> shared (sm_80+; synchronous copies below sm_80) -------------
// 16 bytes; both addresses 16-byte aligned.
BY_DEVICE void by_cp_async_16(void* smem_dst, const void* gmem_src) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(by_smem_addr(smem_dst)), "l"(gmem_src) : "memory");
#else
  *reinterpret_cast<uint4*>(smem_dst) = *reinterpret_cast<const uint4*>(gmem_src);
#endif
}
// The first src_bytes (0..16) bytes from gmem_src, the rest of the 16 zero; nothing is read when
// src_bytes == 0 (gmem_src must still be a 16-byte aligned address: pass the tensor's base).
BY_DEVICE void by_cp_async_16_zfill(void* smem_dst, const void* gmem_src, int src_bytes) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(by_smem_addr(smem_dst)), "l"(gmem_src),
               "r"(src_bytes) : "memory");
#else
  unsigned char* d = reinterpret_cast<unsigned char*>(smem_dst);
  const unsigned char* s = reinterpret_cast<const unsigned char*>(gmem_src);
  for (int i = 0; i < 16; ++i) d[i] = i < src_bytes ? s[i] : (unsigned char)0;
#endif
}
BY_DEVICE void by_cp_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most N of this thread's committed groups are still in flight.
template <int N> BY_DEVICE void by_cp_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}
BY_DEVICE void by_cp_async_wait_all() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// ---- ldmatrix (sm_75+): 8x8 matrices of 16-bit elements from shared memory --------------------
// Lane l gives the address of row (l % 8) of matrix (l / 8) (16 contiguous bytes, 16-byte aligned);
// r[j] receives matrix j's elements (row l/4, cols 2(l%4), 2(l%4)+1), or with .trans the
// elements (rows 2(l%4), 2(l%4)+1, col l/4). Warp-wide: all 32 lanes execute it together.
BY_DEVICE void by_ldmatrix_x1(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(by_smem_addr(smem_row)) : "memory");
}
BY_DEVICE void by_ldmatrix_x2(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1]) : "r"(by_smem_addr(smem_row)) : "memory");
}
BY_DEVICE void by_ldmatrix_x4(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(by_smem_addr(smem_row)) : "memory");
}
BY_DEVICE void by_ldmatrix_x1_trans(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(by_smem_addr(smem_row)) : "memory");
}
BY_DEVICE void by_ldmatrix_x2_trans(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1]) : "r"(by_smem_addr(smem_row)) : "memory");
}
BY_DEVICE void by_ldmatrix_x4_trans(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(by_smem_addr(smem_row)) : "memory");
}

// ---- warp-level tensor-core mma.sync (sm_80+), D = A * B + C, fragments per the PTX ISA --------
// Below sm_80 the same fragments are multiplied in software through warp shuffles (slow, correct).
BY_DEVICE unsigned int by_lane_id() { unsigned int l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }

// Kind 0: f16, 1: bf16 (m16n8k16); 2: tf32 (m16n8k8).
template <int KIND> BY_DEVICE float by_mma_sw_lo(unsigned int r) {
  return KIND == 0 ? by_unpack_half2_lo(r) : KIND == 1 ? by_unpack_bf162_lo(r) : by_tf32_to_float(r);
}
template <int KIND> BY_DEVICE float by_mma_sw_hi(unsigned int r) {
  return KIND == 0 ? by_unpack_half2_hi(r) : by_unpack_bf162_hi(r);
}
template <int KIND>
BY_DEVICE void by_mma_sw(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
  const unsigned int full = 0xFFFFFFFFu;
  const int lane = (int)by_lane_id(), g = lane >> 2, t = lane & 3;
  float acc[4] = {c[0], c[1], c[2], c[3]};
  for (int tt = 0; tt < 4; ++tt) {
    const unsigned int a0 = __shfl_sync(full, a[0], 4 * g + tt), a1 = __shfl_sync(full, a[1], 4 * g + tt);
    const unsigned int a2 = __shfl_sync(full, a[2], 4 * g + tt), a3 = __shfl_sync(full, a[3], 4 * g + tt);
    for (int n = 0; n < 2; ++n) {
      const int src = 4 * (2 * t + n) + tt;
      const unsigned int b0 = __shfl_sync(full, b[0], src), b1 = __shfl_sync(full, b[1], src);
      if (KIND == 2) {  // a0 (g, tt) a1 (g+8, tt) a2 (g, tt+4) a3 (g+8, tt+4); b0 (tt, col) b1 (tt+4, col)
        const float x0 = by_tf32_to_float(b0), x1 = by_tf32_to_float(b1);
        acc[n] += by_tf32_to_float(a0) * x0 + by_tf32_to_float(a2) * x1;
        acc[2 + n] += by_tf32_to_float(a1) * x0 + by_tf32_to_float(a3) * x1;
      } else {  // a0 (g, 2tt..) a1 (g+8, 2tt..) a2 (g, 2tt+8..) a3 (g+8, 2tt+8..); b0 (2tt.., col) b1 (2tt+8.., col)
        const float x0 = by_mma_sw_lo<KIND>(b0), x1 = by_mma_sw_hi<KIND>(b0);
        const float x2 = by_mma_sw_lo<KIND>(b1), x3 = by_mma_sw_hi<KIND>(b1);
        acc[n] += by_mma_sw_lo<KIND>(a0) * x0 + by_mma_sw_hi<KIND>(a0) * x1 +
                  by_mma_sw_lo<KIND>(a2) * x2 + by_mma_sw_hi<KIND>(a2) * x3;
        acc[2 + n] += by_mma_sw_lo<KIND>(a1) * x0 + by_mma_sw_hi<KIND>(a1) * x1 +
                      by_mma_sw_lo<KIND>(a3) * x2 + by_mma_sw_hi<KIND>(a3) * x3;
      }
    }
  }
  d[0] = acc[0]; d[1] = acc[1]; d[2] = acc[2]; d[3] = acc[3];
}

BY_DEVICE void by_mma_m16n8k16_f16_f32(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%10, %11, %12, %13};\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
  by_mma_sw<0>(d, a, b, c);
#endif
}
BY_DEVICE void by_mma_m16n8k16_bf16_f32(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%10, %11, %12, %13};\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
  by_mma_sw<1>(d, a, b, c);
#endif
}
BY_DEVICE void by_mma_m16n8k8_tf32_f32(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%10, %11, %12, %13};\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
  by_mma_sw<2>(d, a, b, c);
#endif
}
