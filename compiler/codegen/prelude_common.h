// Brickyard prelude, the part shared by the device (NVRTC) and the host harness (g++).
// BY_HD marks functions compiled for both; everything here must give bit-identical results
// on both sides (half/bfloat16 conversions: the device's cvt and the host's software round alike).
#pragma once

typedef long long by_i64;
typedef unsigned long long by_u64;

BY_HD unsigned int by_f2u(float f) { union { float f; unsigned int u; } c; c.f = f; return c.u; }
BY_HD float by_u2f(unsigned int u) { union { float f; unsigned int u; } c; c.u = u; return c.f; }

BY_HD float by_inf_f() { return by_u2f(0x7f800000u); }
BY_HD float by_nan_f() { return by_u2f(0x7fc00000u); }
BY_HD double by_inf_d() { union { double d; by_u64 u; } c; c.u = 0x7ff0000000000000ull; return c.d; }
BY_HD double by_nan_d() { union { double d; by_u64 u; } c; c.u = 0x7ff8000000000000ull; return c.d; }

// IEEE binary16 <-> binary32 and binary32 -> bfloat16, round to nearest even: in software (`_sw`,
// what the host harness runs) and, on the device, the hardware conversion (one cvt, PTX ISA), which
// rounds the same way and differs only in which NaN a NaN becomes (both are NaN). The software
// takes 10-30 instructions with branches per element, more than the arithmetic of most kernels.
BY_HD unsigned short by_f32_to_f16_bits_sw(float f) {
  unsigned int x = by_f2u(f);
  unsigned int sign = (x >> 16) & 0x8000u;
  unsigned int mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) return (unsigned short)(sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (mag >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (mag < 0x38800000u) {  // subnormal half (or zero)
    if (mag < 0x33000000u) return (unsigned short)sign;
    unsigned int e = mag >> 23;
    unsigned int m = (mag & 0x7fffffu) | 0x800000u;
    unsigned int shift = 126u - e;  // 14 + (112 - e) + 1 - 1
    unsigned int r = m >> shift;
    unsigned int rem = m & ((1u << shift) - 1u);
    unsigned int half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (unsigned short)(sign | r);
  }
  unsigned int r = mag - 0x38000000u;  // rebias exponent
  unsigned int lsb = (r >> 13) & 1u;
  r += 0xfffu + lsb;
  return (unsigned short)(sign | (r >> 13));
}

BY_HD float by_f16_bits_to_f32_sw(unsigned short h) {
  unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
  unsigned int e = ((unsigned int)h >> 10) & 0x1fu;
  unsigned int m = (unsigned int)h & 0x3ffu;
  if (e == 0x1fu) return by_u2f(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return by_u2f(sign);
    float v = (float)m * (1.0f / 16777216.0f);  // m * 2^-24, exact
    return sign ? -v : v;
  }
  return by_u2f(sign | ((e + 112u) << 23) | (m << 13));
}

BY_HD unsigned short by_f32_to_bf16_bits_sw(float f) {
  unsigned int x = by_f2u(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return (unsigned short)(x >> 16);
}

BY_HD unsigned short by_f32_to_f16_bits(float f) {
#ifdef __CUDA_ARCH__
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  return by_f32_to_f16_bits_sw(f);
#endif
}

BY_HD float by_f16_bits_to_f32(unsigned short h) {
#ifdef __CUDA_ARCH__
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#else
  return by_f16_bits_to_f32_sw(h);
#endif
}

BY_HD unsigned short by_f32_to_bf16_bits(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned short b;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
  return b;
#else
  return by_f32_to_bf16_bits_sw(f);
#endif
}

BY_HD float by_bf16_bits_to_f32(unsigned short b) { return by_u2f(((unsigned int)b) << 16); }

struct by_half {
  unsigned short bits;
  by_half() = default;
  BY_HD by_half(float f) : bits(by_f32_to_f16_bits(f)) {}
  BY_HD by_half(double f) : bits(by_f32_to_f16_bits((float)f)) {}
  BY_HD operator float() const { return by_f16_bits_to_f32(bits); }
};

struct by_bfloat16 {
  unsigned short bits;
  by_bfloat16() = default;
  BY_HD by_bfloat16(float f) : bits(by_f32_to_bf16_bits(f)) {}
  BY_HD by_bfloat16(double f) : bits(by_f32_to_bf16_bits((float)f)) {}
  BY_HD operator float() const { return by_bf16_bits_to_f32(bits); }
};

// Math on compute types: float and double overloads, integer versions where ONNX defines them.
#define BY_MATH1(name, ff, df) \
  BY_HD float name(float x) { return ff(x); } \
  BY_HD double name(double x) { return df(x); }
BY_MATH1(by_exp, expf, exp)
BY_MATH1(by_log, logf, log)
BY_MATH1(by_sqrt, sqrtf, sqrt)
BY_MATH1(by_sin, sinf, sin)
BY_MATH1(by_cos, cosf, cos)
BY_MATH1(by_tan, tanf, tan)
BY_MATH1(by_asin, asinf, asin)
BY_MATH1(by_acos, acosf, acos)
BY_MATH1(by_atan, atanf, atan)
BY_MATH1(by_sinh, sinhf, sinh)
BY_MATH1(by_cosh, coshf, cosh)
BY_MATH1(by_tanh, tanhf, tanh)
BY_MATH1(by_asinh, asinhf, asinh)
BY_MATH1(by_acosh, acoshf, acosh)
BY_MATH1(by_atanh, atanhf, atanh)
BY_MATH1(by_erf, erff, erf)
BY_MATH1(by_floor, floorf, floor)
BY_MATH1(by_ceil, ceilf, ceil)
BY_MATH1(by_round, rintf, rint)  // ONNX Round: half to even
BY_MATH1(by_log1p, log1pf, log1p)
BY_MATH1(by_expm1, expm1f, expm1)
#undef BY_MATH1

BY_HD float by_rsqrt(float x) { return 1.0f / sqrtf(x); }
BY_HD double by_rsqrt(double x) { return 1.0 / sqrt(x); }
BY_HD float by_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
BY_HD double by_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
BY_HD float by_softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }
BY_HD double by_softplus(double x) { return x > 40.0 ? x : log1p(exp(x)); }
BY_HD float by_pow(float a, float b) { return powf(a, b); }
BY_HD double by_pow(double a, double b) { return pow(a, b); }
BY_HD float by_atan2(float a, float b) { return atan2f(a, b); }
BY_HD double by_atan2(double a, double b) { return atan2(a, b); }
BY_HD float by_fmod(float a, float b) { return fmodf(a, b); }
BY_HD double by_fmod(double a, double b) { return fmod(a, b); }

template <class T> BY_HD T by_abs(T x) { return x < T(0) ? T(-x) : x; }
template <class T> BY_HD T by_neg(T x) { return T(-x); }
template <class T> BY_HD T by_sign(T x) { return T((x > T(0)) - (x < T(0))); }
template <class T> BY_HD T by_reciprocal(T x) { return T(1) / x; }
template <class T> BY_HD bool by_isnan(T x) { return x != x; }
template <class T> BY_HD bool by_isposinf(T x) { return x == T(1) / T(0) && x > T(0); }
template <class T> BY_HD bool by_isneginf(T x) { return x == T(-1) / T(0) && x < T(0); }
template <class T> BY_HD bool by_isinf(T x) { return by_isposinf(x) || by_isneginf(x); }
// min/max propagate NaN as ONNX (and NumPy) do.
template <class T> BY_HD T by_min(T a, T b) { return (a != a || a < b) ? a : b; }
template <class T> BY_HD T by_max(T a, T b) { return (a != a || a > b) ? a : b; }
// Integer power by repeated squaring (ONNX Pow on integers).
template <class T> BY_HD T by_ipow(T a, T b) {
  T r = 1; if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
  while (b) { if (b & 1) r *= a; a *= a; b >>= 1; } return r;
}
// Python-style modulo (ONNX Mod with fmod=0): the result has the divisor's sign.
template <class T> BY_HD T by_pymod(T a, T b) { T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r; }
BY_HD float by_pymod(float a, float b) { float r = fmodf(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
BY_HD double by_pymod(double a, double b) { double r = fmod(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }

// ---- tensor-core helpers shared by both sides (docs/prelude.md) --------------------------------
// Two 16-bit values side by side, as an f16x2 / bf16x2 register holds them: x in the low half.
struct __align__(4) by_half2 { by_half x, y; };
struct __align__(4) by_bfloat162 { by_bfloat16 x, y; };

// f16x2 / bf16x2 operand registers of mma.sync: `lo` goes to the low 16 bits (the element with
// the lower index in the PTX fragment tables), round to nearest even.
BY_HD unsigned int by_pack_half2(float lo, float hi) {
  return (unsigned int)by_f32_to_f16_bits(lo) | ((unsigned int)by_f32_to_f16_bits(hi) << 16);
}
BY_HD unsigned int by_pack_bf162(float lo, float hi) {
  return (unsigned int)by_f32_to_bf16_bits(lo) | ((unsigned int)by_f32_to_bf16_bits(hi) << 16);
}
BY_HD float by_unpack_half2_lo(unsigned int r) { return by_f16_bits_to_f32((unsigned short)(r & 0xffffu)); }
BY_HD float by_unpack_half2_hi(unsigned int r) { return by_f16_bits_to_f32((unsigned short)(r >> 16)); }
BY_HD float by_unpack_bf162_lo(unsigned int r) { return by_bf16_bits_to_f32((unsigned short)(r & 0xffffu)); }
BY_HD float by_unpack_bf162_hi(unsigned int r) { return by_bf16_bits_to_f32((unsigned short)(r >> 16)); }
// Two 16-bit values already in f16 / bf16 as one operand register (lo in the low half).
BY_HD unsigned int by_pack_half2(by_half lo, by_half hi) { return (unsigned int)lo.bits | ((unsigned int)hi.bits << 16); }
BY_HD unsigned int by_pack_bf162(by_bfloat16 lo, by_bfloat16 hi) {
  return (unsigned int)lo.bits | ((unsigned int)hi.bits << 16);
}

// float -> tf32 operand register (.b32 with the 13 low mantissa bits zero): what
// cvt.rna.tf32.f32 computes (round to nearest, ties away from zero; finite values that round
// past the largest tf32 become inf; NaN and inf only lose their low bits), done with integer
// operations so that both sides agree bit for bit.
BY_HD unsigned int by_float_to_tf32(float f) {
  unsigned int x = by_f2u(f);
  if ((x & 0x7fffffffu) < 0x7f800000u) x += 0x1000u;
  return x & 0xffffe000u;
}
BY_HD float by_tf32_to_float(unsigned int r) { return by_u2f(r & 0xffffe000u); }

// ---- shared-memory swizzles (pure index functions) ---------------------------------------------
// XOR-swizzle of a byte offset: the `bits` bits starting at bit `base` are XORed with the bits
// `shift` places higher. by_swizzle_bits(o, 3, 4, 3) is the 128-byte pattern (16-byte chunk
// index ^= row index mod 8 for 128-byte rows), the same bytes TMA's SWIZZLE_128B produces on a
// 1024-byte aligned tile. A bijection on every aligned block of 2^(base+bits+shift) bytes that
// keeps the low `base` bits (a 16-byte vector stays contiguous for base = 4).
BY_HD int by_swizzle_bits(int offset, int bits, int base, int shift) {
  return offset ^ ((offset >> shift) & (((1 << bits) - 1) << base));
}
// Byte offset of (row, col_bytes) in a row-major tile with 128-byte rows (col_bytes < 128):
// the 8 rows of an ldmatrix/8 x 16-byte access of one column chunk hit 8 different bank groups.
BY_HD int by_swizzle_128b(int row, int col_bytes) { return by_swizzle_bits(row * 128 + col_bytes, 3, 4, 3); }
// Same for 64-byte rows (col_bytes < 64): chunk ^= (row / 2) mod 4 (TMA SWIZZLE_64B).
BY_HD int by_swizzle_64b(int row, int col_bytes) { return by_swizzle_bits(row * 64 + col_bytes, 2, 4, 3); }
// Same for 32-byte rows (col_bytes < 32): chunk ^= (row / 4) mod 2 (TMA SWIZZLE_32B).
BY_HD int by_swizzle_32b(int row, int col_bytes) { return by_swizzle_bits(row * 32 + col_bytes, 1, 4, 3); }

// ---- wgmma shared-memory matrix descriptors (sm_90a) ------------------------------------------
// The 64-bit descriptor of PTX ISA section "Asynchronous Warpgroup Level Matrix Shared Memory
// Layout: Matrix Descriptor" (9.7.15.5.1 in ISA 8.x): bits 0-13 the matrix start address,
// bits 16-29 the leading dimension byte offset, bits 32-45 the stride dimension byte offset (all
// three in units of 16 bytes, i.e. (value & 0x3FFFF) >> 4), bits 49-51 the base offset (0: every
// swizzle atom this kernel uses starts on a 1024-byte boundary), bits 62-63 the swizzle mode
// (0 none, 1 128-byte, 2 64-byte, 3 32-byte). For 128-byte swizzled operands (the only mode the
// host harness emulates), element (mn, k) of a 16-bit operand lies at the swizzled shared address
//   K-major:  start + (mn / 8) * SBO + (mn % 8) * 128 + 2 * k                 (LBO unused)
//   MN-major: start + (mn / 64) * LBO + 2 * (mn % 64) + (k / 8) * SBO + (k % 8) * 128
// where swizzling XORs address bits 4-6 with bits 7-9 (by_swizzle_bits(a, 3, 4, 3)).
#define BY_WGMMA_SWIZZLE_128B 1u
BY_HD unsigned long long by_wgmma_desc(unsigned int smem_addr, unsigned int lbo_bytes, unsigned int sbo_bytes,
                                       unsigned int swizzle_mode) {
  return (unsigned long long)((smem_addr & 0x3FFFFu) >> 4) | ((unsigned long long)((lbo_bytes & 0x3FFFFu) >> 4) << 16) |
         ((unsigned long long)((sbo_bytes & 0x3FFFFu) >> 4) << 32) | ((unsigned long long)(swizzle_mode & 3u) << 62);
}

// ---- block functions (DESIGN section 6) -----------------------------------------------------------
// A rendered kernel is a body `void <entry>_body(params..., const by_block_index by_block)` plus a
// __global__ wrapper that passes by_this_block(). Bodies read their block's position only from
// by_block, so another wrapper may run a body for blocks of a virtual grid of its choosing (several
// bodies co-launched by block range, or bodies called between grid barriers of a persistent
// kernel). threadIdx and blockDim are not virtual: a body runs at its own block shape.
struct by_block_index {
  uint3 idx;                // this block's index in the virtual grid
  dim3 grid;                // the virtual grid's extent
  unsigned int* arrivals;   // the launch's counters (Kernel.arrivals of them; by_arrive), or null
};
// The hardware block as a virtual one: what a plain launch's wrapper passes.
BY_DEVICE by_block_index by_this_block(unsigned int* arrivals = nullptr) {
  by_block_index b;
  b.idx = blockIdx;
  b.grid = gridDim;
  b.arrivals = arrivals;
  return b;
}
// Block `linear` (x fastest, then y, then z) of a virtual grid of extent `grid`: what a wrapper
// that dispatches a range of its blocks to a body passes (linear = hardware block - range start),
// with the counters the wrapper keeps for that body's call (each call site its own).
BY_DEVICE by_block_index by_block_at(unsigned int linear, dim3 grid, unsigned int* arrivals = nullptr) {
  by_block_index b;
  b.idx.x = linear % grid.x;
  b.idx.y = (linear / grid.x) % grid.y;
  b.idx.z = linear / (grid.x * grid.y);
  b.grid = grid;
  b.arrivals = arrivals;
  return b;
}
