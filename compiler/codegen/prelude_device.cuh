// Brickyard device prelude for NVRTC. The host harness has its own version of everything
// here (prelude_host.h); generated kernels use only what these two files define.
#define BY_HD __device__ __forceinline__
#define BY_DEVICE __device__ __forceinline__
#define BY_DEVICE_CALLED __device__ __noinline__   // a body a persistent kernel calls (Grinder)
#define BY_DEVICE_CONST __device__ const           // a table baked into a kernel (SparTA's tile lists)
#define BY_DEVICE_STATE __device__                 // a launch's own counters, zero when loaded (by_arrive)
#define BY_ROLLED _Pragma("unroll 1")              // a fold's loop kept a loop inside unrolled tile code
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

// Hardware barrier `id` (1..15) of n threads (a multiple of 32). It never meets __syncthreads'
// barrier 0: a persistent kernel runs several sub-blocks of a narrower body side by side in one
// block, each on its own barrier, and has every __syncthreads of that body call this instead.
BY_DEVICE void by_part_sync(unsigned id, unsigned n) { asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n) : "memory"); }

// ---- step counters: dependent kernels in one launch (rammer's barrier variant) ------------------
// Each member of the launch has a counter its blocks bump when done; a block of a member that
// reads another's output first waits until that member's counter reaches its block count. Only
// safe when every block is resident at once (a cooperative launch checks it). The last block of
// the launch to finish resets every counter (all waits are over by then), so the next launch,
// or a CUDA graph's replay, starts from zero.
BY_DEVICE void by_step_wait(const unsigned int* counter, unsigned int blocks) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    while (*reinterpret_cast<const volatile unsigned int*>(counter) < blocks) __nanosleep(32);
    __threadfence();
  }
  __syncthreads();
}
BY_DEVICE void by_step_signal(unsigned int* counter) {
  __threadfence();   // this thread's writes are visible device-wide before the block signals
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) atomicAdd(counter, 1u);
}
BY_DEVICE void by_steps_reset(unsigned int* counters, int n, unsigned int blocks) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && atomicAdd(&counters[n], 1u) == blocks - 1u) {
    for (int i = 0; i <= n; ++i) atomicExch(&counters[i], 0u);
    __threadfence();
  }
}

// ---- arrival counters: one result computed in parts by several blocks (split-K) -----------------
// Each block writes its part, fences and syncs its threads (in its body, so that a narrowed body's
// barrier is its own), then its first thread arrives on the result's counter: true for the block
// that arrives last, which then reads every part (after a fence). That block resets the counter,
// so the next launch, or a graph's replay, finds it zero. No block waits for another: safe at any
// occupancy and in any block order. The counters are the launch's own (by_block.arrivals).
BY_DEVICE bool by_arrive(unsigned int* counter, unsigned int parts) {
  const bool last = atomicAdd(counter, 1u) == parts - 1u;
  if (last) atomicExch(counter, 0u);
  return last;
}

// ---- vector memory (docs/prelude.md) ------------------------------------------------------------
// 16-byte (8-byte for v2) accesses; the address must be aligned to the access size.
BY_DEVICE float4 by_ld_global_v4(const float* p) { return *reinterpret_cast<const float4*>(p); }
BY_DEVICE int4 by_ld_global_v4(const int* p) { return *reinterpret_cast<const int4*>(p); }
BY_DEVICE uint4 by_ld_global_v4(const unsigned int* p) { return *reinterpret_cast<const uint4*>(p); }
BY_DEVICE uint4 by_ld_global_b128(const void* p) { return *reinterpret_cast<const uint4*>(p); }
BY_DEVICE uint4 by_ld_shared_b128(const void* p) { return *reinterpret_cast<const uint4*>(p); }
BY_DEVICE float4 by_ld_shared_v4(const float* p) { return *reinterpret_cast<const float4*>(p); }
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

// 8-bit integer mma m16n8k32 (s8/u8 each side, s32 accumulators; wraps, no .satfinite). Below
// sm_80 the fragments are multiplied through warp shuffles (slow, correct), as the float kinds do.
template <bool AS, bool BS> BY_DEVICE int by_mma_i8_byte(unsigned int r, int i, bool is_a) {
  const unsigned int b = (r >> (8 * i)) & 0xFFu;
  return (is_a ? AS : BS) ? (int)(signed char)b : (int)b;
}
template <bool AS, bool BS>
BY_DEVICE void by_mma_i8_sw(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  const unsigned int full = 0xFFFFFFFFu;
  const int lane = (int)by_lane_id(), g = lane >> 2, t = lane & 3;
  unsigned int acc[4] = {(unsigned int)c[0], (unsigned int)c[1], (unsigned int)c[2], (unsigned int)c[3]};
  for (int tt = 0; tt < 4; ++tt) {
    const unsigned int a0 = __shfl_sync(full, a[0], 4 * g + tt), a1 = __shfl_sync(full, a[1], 4 * g + tt);
    const unsigned int a2 = __shfl_sync(full, a[2], 4 * g + tt), a3 = __shfl_sync(full, a[3], 4 * g + tt);
    for (int n = 0; n < 2; ++n) {
      const int src = 4 * (2 * t + n) + tt;
      const unsigned int b0 = __shfl_sync(full, b[0], src), b1 = __shfl_sync(full, b[1], src);
      for (int i = 0; i < 4; ++i) {
        const int x0 = by_mma_i8_byte<AS, BS>(b0, i, false), x1 = by_mma_i8_byte<AS, BS>(b1, i, false);
        acc[n] += (unsigned int)(by_mma_i8_byte<AS, BS>(a0, i, true) * x0 + by_mma_i8_byte<AS, BS>(a2, i, true) * x1);
        acc[2 + n] += (unsigned int)(by_mma_i8_byte<AS, BS>(a1, i, true) * x0 +
                                     by_mma_i8_byte<AS, BS>(a3, i, true) * x1);
      }
    }
  }
  d[0] = (int)acc[0]; d[1] = (int)acc[1]; d[2] = (int)acc[2]; d[3] = (int)acc[3];
}
// One asm statement per sign pair (PTX names the types in the opcode); the wrappers below pick it.
#define BY_MMA_I8_ASM(TA, TB)                                                                              \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32." TA "." TB ".s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
               "{%8, %9}, {%10, %11, %12, %13};\n"                                                          \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                             \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),                           \
                 "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
template <bool AS, bool BS>
BY_DEVICE void by_mma_i8(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
#if __CUDA_ARCH__ >= 800
  if (AS && BS) BY_MMA_I8_ASM("s8", "s8");
  else if (AS) BY_MMA_I8_ASM("s8", "u8");
  else if (BS) BY_MMA_I8_ASM("u8", "s8");
  else BY_MMA_I8_ASM("u8", "u8");
#else
  by_mma_i8_sw<AS, BS>(d, a, b, c);
#endif
}
#undef BY_MMA_I8_ASM
BY_DEVICE void by_mma_m16n8k32_s8s8_s32(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  by_mma_i8<true, true>(d, a, b, c);
}
BY_DEVICE void by_mma_m16n8k32_s8u8_s32(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  by_mma_i8<true, false>(d, a, b, c);
}
BY_DEVICE void by_mma_m16n8k32_u8s8_s32(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  by_mma_i8<false, true>(d, a, b, c);
}
BY_DEVICE void by_mma_m16n8k32_u8u8_s32(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  by_mma_i8<false, false>(d, a, b, c);
}

// ---- sparse tensor-core mma.sp (sm_80+): D (16x8) = A (16x32, 2:4 along k) * B (32x8) + C -------
// a: the 16x16 compressed A (two kept values of every 4-wide chunk) as a dense m16n8k16 A
// fragment; b: four registers, register i holding k = 2t + 8i and 2t + 8i + 1 of column groupID;
// e: metadata, sparsity selector 0: lane 4g gives k 0-15 and lane 4g + 1 k 16-31 of rows g (low
// 16 bits) and g + 8 (high 16 bits), one nibble per chunk holding the kept positions as two
// increasing 2-bit fields (ordered metadata). sparse24_gemm is never chosen below sm_80.
#define BY_MMA_SP_M16N8K32(NAME, TYPE)                                                                  \
  BY_DEVICE void NAME(float* d, const unsigned int* a, const unsigned int* b, const float* c, unsigned int e) { \
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32." TYPE "." TYPE ".f32 "      \
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0;\n" \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                       \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), \
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "r"(e));                                  \
  }
#if __CUDA_ARCH__ >= 800
BY_MMA_SP_M16N8K32(by_mma_sp_m16n8k32_f16_f32, "f16")
BY_MMA_SP_M16N8K32(by_mma_sp_m16n8k32_bf16_f32, "bf16")
#else
BY_DEVICE void by_mma_sp_m16n8k32_f16_f32(float*, const unsigned int*, const unsigned int*, const float*, unsigned int) { __trap(); }
BY_DEVICE void by_mma_sp_m16n8k32_bf16_f32(float*, const unsigned int*, const unsigned int*, const float*, unsigned int) { __trap(); }
#endif
#undef BY_MMA_SP_M16N8K32

// ---- Hopper (sm_90): mbarriers, the bulk tensor copy engine (TMA), warpgroup mma --------------
// docs/prelude.md, "Hopper". A tensor map is the driver's 128-byte CUtensorMap, passed by value as a
// `const __grid_constant__ by_tensor_map` kernel parameter (its address is then a global address
// the copy engine may read). Kernels using these list their maps in Kernel.tensor_maps.
struct __align__(64) by_tensor_map { unsigned long long opaque[16]; };

#if __CUDA_ARCH__ >= 900
// A 64-bit mbarrier in shared memory, 8-byte aligned. Initialised by one thread, then a
// __syncthreads() before any other thread (or the copy engine) uses it.
BY_DEVICE void by_mbar_init(void* bar, unsigned int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(by_smem_addr(bar)), "r"(count) : "memory");
  // make the initialisation visible to the async proxy (the copy engine's complete_tx)
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// Adds `bytes` to the transaction count of the current phase and arrives once.
BY_DEVICE void by_mbar_arrive_expect_tx(void* bar, unsigned int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(by_smem_addr(bar)), "r"(bytes)
               : "memory");
}
// Returns once the phase with parity `parity` (0, 1, 0, ...) has completed.
BY_DEVICE void by_mbar_wait(void* bar, unsigned int parity) {
  const unsigned int a = by_smem_addr(bar);
  unsigned int done = 0;
  while (!done) {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(a), "r"(parity) : "memory");
  }
}
// Orders this thread's ordinary shared-memory writes before later async-proxy reads (wgmma, TMA store).
BY_DEVICE void by_fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// Bulk tensor copy global -> shared of one box at element coordinates (c0 innermost); completes
// the box's bytes on `bar`. Out-of-bounds elements are zero-filled (and still counted).
BY_DEVICE void by_tma_load_2d(void* dst, const by_tensor_map* map, int c0, int c1, void* bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
               ::"r"(by_smem_addr(dst)), "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(by_smem_addr(bar))
               : "memory");
}
BY_DEVICE void by_tma_load_3d(void* dst, const by_tensor_map* map, int c0, int c1, int c2, void* bar) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
               ::"r"(by_smem_addr(dst)), "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(c2), "r"(by_smem_addr(bar))
               : "memory");
}
BY_DEVICE void by_tma_load_4d(void* dst, const by_tensor_map* map, int c0, int c1, int c2, int c3, void* bar) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
               ::"r"(by_smem_addr(dst)), "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3),
                 "r"(by_smem_addr(bar)) : "memory");
}
#endif

// An ordinary shared store (any arch). Operands that wgmma (the async proxy) reads are written
// through it so that the host harness can check the writer's by_fence_proxy_async.
template <typename T> BY_DEVICE void by_st_shared(T* p, const T& v) { *p = v; }

// Warpgroup mma (sm_90a only: kernels using it set Kernel.arch_specific). All 128 threads of a
// warpgroup (4 consecutive warps, the first one's index divisible by 4) execute each of these.
// D (64 x N, fp32, N/2 registers per thread) = A (64 x 16, descriptor da) * B (16 x N, descriptor
// db) + (scale_d ? D : 0); TA / TB: 0 = K-major, 1 = MN-major ("transposed") operand in shared memory.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
BY_DEVICE void by_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
BY_DEVICE void by_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most N of the warpgroup's committed wgmma groups are pending.
template <int N> BY_DEVICE void by_wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
template <int TA, int TB>
BY_DEVICE void by_wgmma_m64n64k16_f16(float* d, unsigned long long da, unsigned long long db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, %35, %36;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB) : "memory");
}
template <int TA, int TB>
BY_DEVICE void by_wgmma_m64n64k16_bf16(float* d, unsigned long long da, unsigned long long db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, %35, %36;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB) : "memory");
}
template <int TA, int TB>
BY_DEVICE void by_wgmma_m64n128k16_f16(float* d, unsigned long long da, unsigned long long db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
               "%64, %65, p, 1, 1, %67, %68;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB) : "memory");
}
template <int TA, int TB>
BY_DEVICE void by_wgmma_m64n128k16_bf16(float* d, unsigned long long da, unsigned long long db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
               "%64, %65, p, 1, 1, %67, %68;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB) : "memory");
}
template <int TA, int TB>
BY_DEVICE void by_wgmma_m64n256k16_f16(float* d, unsigned long long da, unsigned long long db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
               "%128, %129, p, 1, 1, %131, %132;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
               : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB) : "memory");
}
template <int TA, int TB>
BY_DEVICE void by_wgmma_m64n256k16_bf16(float* d, unsigned long long da, unsigned long long db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
               "%128, %129, p, 1, 1, %131, %132;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
               : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB) : "memory");
}

#endif
