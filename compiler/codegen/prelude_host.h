// Brickyard host prelude: the same kernel sources NVRTC compiles, built with g++ and run on the CPU.
//
// Execution model (DESIGN section 6): a block's threads are cooperative fibers in one OS thread.
// A fiber runs until it reaches a barrier (or a warp operation, which exchanges values through
// per-warp slots), then yields; a barrier releases its waiters once every live thread it covers has
// arrived, so threads that exited never hold up the others. Kernels without barriers run their
// threads as a plain loop. Cooperative kernels keep all blocks' threads alive together and
// by_grid_sync() is a barrier over all of them. Launches are not reentrant: the Python side
// serialises them per loaded module.
//
// Build variants: a shared library (faults come back as an error code and message), or, with
// BY_HOST_DRIVER defined, a standalone driver program (used under AddressSanitizer) whose main()
// reads buffers from files, and which prints a fault and exits.
#pragma once
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <limits.h>
#include <math.h>  // libstdc++'s math.h also puts the float overloads (sqrt(float), ...) in ::
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif
#if !defined(__x86_64__) || defined(BY_HOST_UCONTEXT)
#include <ucontext.h>
#define BY_HOST_USE_UCONTEXT 1
#endif

// ---- what the device prelude and CUDA's front end provide -------------------------------------
// Not `static`: BY_HD also marks constructors and conversion operators in prelude_common.h.
#define BY_HD inline
#define BY_DEVICE inline
#define BY_DEVICE_CALLED __attribute__((noinline))
#define BY_DEVICE_CONST const
#define BY_DEVICE_STATE
#define BY_ROLLED
#define BY_KERNEL extern "C"
#define BY_HOST_EXPORT extern "C" __attribute__((visibility("default")))
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
// __restrict__ is a g++ keyword already. __shared__ stays undefined on purpose: all shared memory
// must come from BY_SHARED_BUFFER, and a static __shared__ array would be one copy for all blocks.

// CUDA's vector types with their device alignment (so vector loads see the same layout).
#define BY_HOST_VECTOR_TYPES(T, name, align2, align4)                                          \
  struct name##1 { T x; };                                                                     \
  struct __attribute__((aligned(align2))) name##2 { T x, y; };                                 \
  struct name##3 { T x, y, z; };                                                               \
  struct __attribute__((aligned(align4))) name##4 { T x, y, z, w; };                           \
  inline name##1 make_##name##1(T x) { name##1 v; v.x = x; return v; }                        \
  inline name##2 make_##name##2(T x, T y) { name##2 v; v.x = x; v.y = y; return v; }           \
  inline name##3 make_##name##3(T x, T y, T z) { name##3 v; v.x = x; v.y = y; v.z = z; return v; } \
  inline name##4 make_##name##4(T x, T y, T z, T w) {                                          \
    name##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v;                                   \
  }
BY_HOST_VECTOR_TYPES(signed char, char, 2, 4)
BY_HOST_VECTOR_TYPES(unsigned char, uchar, 2, 4)
BY_HOST_VECTOR_TYPES(short, short, 4, 8)
BY_HOST_VECTOR_TYPES(unsigned short, ushort, 4, 8)
BY_HOST_VECTOR_TYPES(int, int, 8, 16)
BY_HOST_VECTOR_TYPES(unsigned int, uint, 8, 16)
BY_HOST_VECTOR_TYPES(float, float, 8, 16)
BY_HOST_VECTOR_TYPES(long long, longlong, 16, 16)
BY_HOST_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
BY_HOST_VECTOR_TYPES(double, double, 16, 16)
#undef BY_HOST_VECTOR_TYPES

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ---- the scheduler's state ------------------------------------------------------------------
namespace by_host {

enum FiberState { RUNNABLE, AT_BLOCK_BARRIER, AT_WARP_BARRIER, AT_GRID_BARRIER, AT_MBARRIER, AT_STEP, AT_PART_BARRIER,
                  EXITED };
enum LaunchFlags { USE_FIBERS = 1, COOPERATIVE = 2, SHUFFLE = 4 };

struct Fiber;

// Warp operations exchange 8-byte payloads through slots, double-buffered by the parity of the
// warp's barrier generation: a lane that already went on to the next operation writes the other
// half, so a slower lane still reads what was written for the operation it took part in.
struct Warp {
  unsigned live;          // lanes not yet exited
  unsigned arrived;       // lanes waiting at the pending warp barrier
  unsigned waiting_for;   // union of the masks the arrived lanes named
  unsigned gen;
  unsigned took_part[2];  // lanes of the last two completed generations
  bool only_activemask;   // every arrival so far is __activemask: released when nothing else can run
  unsigned long long slot[2][32];
};

struct Block {
  uint3 idx;
  unsigned char* shared;
  int live, arrived;
  unsigned gen;
  int took_part[2];
  long long tally[2];  // __syncthreads_count/and/or
  int part_arrived[16];  // at by_part_sync, per hardware barrier id
  Fiber* fibers;       // nthreads of them, in linear thread order
  int nthreads;
  Warp* warps;
  // per 2-byte unit of shared memory: its last writer for the async-proxy check (proxy_units)
  int* proxy_writer;
  unsigned* proxy_gen;
};

struct Fiber {
#if BY_HOST_USE_UCONTEXT
  ucontext_t uc;
#else
  void* sp;
#endif
  unsigned char* stack;  // lowest usable byte (just above the guard page)
  void* asan_fake_stack;
  uint3 tid;
  Block* block;
  Warp* warp;
  int lane;
  int state;
  const unsigned char* mbar;  // AT_MBARRIER: the mbarrier and the phase parity it waits for
  unsigned mbar_parity;
  const unsigned int* step;  // AT_STEP: the step counter and the count it waits for
  unsigned int step_target;
  unsigned part_id;  // AT_PART_BARRIER: the barrier it waits at
  void* wgmma;  // the thread's wgmma state (allocated on first use, freed by cleanup)
  unsigned proxy_fences;  // by_fence_proxy_async calls so far in this block
  unsigned proxy_synced;  // of them, those made before the thread's latest __syncthreads
};

// What threadIdx, blockIdx, ... and BY_SHARED_BUFFER read: the running thread's view.
struct Current {
  uint3 thread_idx, block_idx;
  dim3 block_dim, grid_dim;
  unsigned char* shared;
  Fiber* fiber;  // null when threads run as a plain loop
};
static Current cur;

typedef void (*Thunk)(void* const* args);

struct Launch {
  const char* kernel;
  Thunk thunk;
  void* const* args;
  int flags;
  int nthreads;
  unsigned long long nblocks;
  unsigned long long shared_bytes;
  int live;          // fibers not yet exited in the current schedule
  int grid_arrived;  // at by_grid_sync
  // per-launch allocations, freed by cleanup() (also after a fault)
  Fiber* fibers;
  Block* blocks;
  Warp* warps;
  int* order;
  int* fiber_order;
  uint3* tids;  // threadIdx of each linear thread index of a block
  unsigned char** shared_bufs;
  unsigned long long nshared;
  long long nfibers;
};
static Launch L;

static unsigned long long rng_state;
static inline unsigned long long rng_next() {  // splitmix64
  unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline void permute(int* a, long long n) {
  for (long long i = n - 1; i > 0; --i) {
    long long j = (long long)(rng_next() % (unsigned long long)(i + 1));
    int t = a[i]; a[i] = a[j]; a[j] = t;
  }
}

// ---- faults -----------------------------------------------------------------------------------
static char error_text[8192];
static sigjmp_buf fault_jmp;
static volatile int fault_armed;
static size_t stack_bytes = 64 * 1024;  // per fiber, set by the launcher
static size_t page_bytes = 4096;

static int where(char* out, size_t n) {
  if (!L.kernel) return snprintf(out, n, "harness");
  return snprintf(out, n, "kernel %s, block (%u,%u,%u) thread (%u,%u,%u)", L.kernel, cur.block_idx.x,
                  cur.block_idx.y, cur.block_idx.z, cur.thread_idx.x, cur.thread_idx.y, cur.thread_idx.z);
}

[[noreturn]] static void raise_fault() {
#if defined(BY_HOST_DRIVER)
  fprintf(stderr, "brickyard harness fault: %s\n", error_text);
  fflush(stderr);
  _exit(97);
#else
  siglongjmp(fault_jmp, 1);
#endif
}

// A fault attributed to the running thread.
[[noreturn]] __attribute__((format(printf, 1, 2))) static void fault(const char* fmt, ...) {
  int n = where(error_text, sizeof error_text);
  if (n < 0 || (size_t)n >= sizeof error_text) n = 0;
  n += snprintf(error_text + n, sizeof error_text - n, ": ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_text + n, sizeof error_text - n, fmt, ap);
  va_end(ap);
  raise_fault();
}

// ---- fiber stacks: a pool reused across blocks and launches ----------------------------------
// Every stack has a guard page below it while the process has mappings to spare; the bottom words
// also hold a canary, checked whenever a fiber yields. A guarded stack costs two mappings, and each
// loaded kernel module keeps its own pool, so the guards stop where the whole process would come
// near the kernel's vm.max_map_count (a long test process loads hundreds of modules; past the
// limit every mmap, a shared library's included, fails).
static const unsigned long long CANARY = 0x5AFE57AC4B1DCAFEull;
static const int GUARDED_STACKS = 8192;
static unsigned char** pool;
static int pool_count, pool_cap, pool_guarded;
static bool pool_unguarded;   // once a stack goes without a guard, later ones do too (guards stay a prefix)
static size_t pool_stack_bytes;

static unsigned char** chunk_heads;
static size_t* chunk_sizes;
static int nchunks, chunk_cap;

static long count_lines(const char* path) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  char buf[65536];
  long n = 0;
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    for (size_t i = 0; i < got; ++i) n += buf[i] == '\n';
  fclose(f);
  return n;
}

// Guards this pool may still add: half of what is left under half of vm.max_map_count.
static long guards_to_spare() {
  long limit = 65530;
  FILE* f = fopen("/proc/sys/vm/max_map_count", "r");
  if (f) {
    if (fscanf(f, "%ld", &limit) != 1) limit = 65530;
    fclose(f);
  }
  long used = count_lines("/proc/self/maps");
  if (used < 0) return 0;
  long spare = (limit / 2 - used) / 2;
  return spare > 0 ? spare : 0;
}

static void pool_reset(size_t bytes) {
  for (int i = 0; i < nchunks; ++i) munmap(chunk_heads[i], chunk_sizes[i]);
  nchunks = 0;
  pool_count = 0;
  pool_guarded = 0;
  pool_unguarded = false;
  pool_stack_bytes = bytes;
}

static void pool_ensure(int n) {
  page_bytes = (size_t)sysconf(_SC_PAGESIZE);
  size_t bytes = (stack_bytes + page_bytes - 1) / page_bytes * page_bytes;
  if (bytes != pool_stack_bytes) pool_reset(bytes);
  if (n <= pool_count) return;
  if (n > pool_cap) {
    int cap = pool_cap ? pool_cap : 64;
    while (cap < n) cap *= 2;
    pool = (unsigned char**)realloc(pool, sizeof(unsigned char*) * cap);
    if (!pool) fault("out of memory for fiber stacks");
    pool_cap = cap;
  }
  long spare = pool_unguarded ? 0 : guards_to_spare();
  while (pool_count < n) {
    int k = n - pool_count < 64 ? n - pool_count : 64;
    size_t each = bytes + page_bytes, total = each * (size_t)k;
    void* m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) fault("cannot map %zu bytes of fiber stacks", total);
    if (nchunks == chunk_cap) {
      chunk_cap = chunk_cap ? 2 * chunk_cap : 16;
      chunk_heads = (unsigned char**)realloc(chunk_heads, sizeof(unsigned char*) * chunk_cap);
      chunk_sizes = (size_t*)realloc(chunk_sizes, sizeof(size_t) * chunk_cap);
    }
    chunk_heads[nchunks] = (unsigned char*)m;
    chunk_sizes[nchunks++] = total;
    for (int i = 0; i < k; ++i) {
      unsigned char* guard = (unsigned char*)m + each * i;
      if (!pool_unguarded && pool_guarded < GUARDED_STACKS && spare > 0) {
        mprotect(guard, page_bytes, PROT_NONE);
        ++pool_guarded;
        --spare;
      } else {
        pool_unguarded = true;
      }
      pool[pool_count++] = guard + page_bytes;
    }
  }
}

// A cooperative launch keeps every block's fibers alive at once (a persistent region: 100k stacks,
// a GB of touched pages); kept after it, each loaded module's pool would hold that until the
// process ends, and a process running many models (a test run, a worker verifying its jobs)
// would run out of memory. Pools past a block's widest are released after the launch.
static const int POOL_KEPT_STACKS = 1024;

static void pool_trim() {
  if (pool_count > POOL_KEPT_STACKS) pool_reset(pool_stack_bytes);
}

static inline bool in_guard_page(const void* addr) {
  const unsigned char* a = (const unsigned char*)addr;
  for (int i = 0; i < pool_guarded; ++i)
    if (a >= pool[i] - page_bytes && a < pool[i]) return true;
  return false;
}

// ---- context switching ----------------------------------------------------------------------
#if !BY_HOST_USE_UCONTEXT
// Saves the callee-saved registers and the SSE/x87 control words on the current stack, stores
// the stack pointer in *save, and resumes the context whose stack pointer is `load`. ucontext's
// swapcontext also saves the signal mask, a system call per switch; this does not.
extern "C" void by_host_switch(void** save, void* load);
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl by_host_switch\n"
    ".hidden by_host_switch\n"
    ".type by_host_switch,@function\n"
    "by_host_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size by_host_switch,.-by_host_switch\n");
static void* scheduler_sp;
#else
static ucontext_t scheduler_uc;
#endif

// AddressSanitizer must be told when the stack changes, or it reports false positives.
#if defined(__SANITIZE_ADDRESS__)
static void* sched_fake_stack;
static const void* sched_stack_bottom;
static size_t sched_stack_size;
#endif

static void fiber_main();

// `color` staggers the stack tops: stacks a fixed 68 KiB apart would otherwise put every fiber's
// hot frames in the same few L1 cache sets.
static void fiber_init(Fiber* f, unsigned char* stack, size_t color) {
  f->stack = stack;
  f->asan_fake_stack = nullptr;
  f->state = RUNNABLE;
  ((unsigned long long*)stack)[0] = CANARY;
  ((unsigned long long*)stack)[1] = CANARY;
#if BY_HOST_USE_UCONTEXT
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = stack;
  f->uc.uc_stack.ss_size = pool_stack_bytes;
  f->uc.uc_link = nullptr;
  makecontext(&f->uc, fiber_main, 0);
#else
  // The first switch into the fiber pops the control words and six registers, then "returns" into
  // fiber_main with the stack aligned as after a call (rsp % 16 == 8).
  uintptr_t top = ((uintptr_t)(stack + pool_stack_bytes - color)) & ~(uintptr_t)15;
  void** sp = (void**)top;
  *--sp = nullptr;                       // fiber_main's return address: it never returns
  *--sp = (void*)&fiber_main;            // popped by `ret`
  for (int i = 0; i < 6; ++i) *--sp = nullptr;
  --sp;
  ((unsigned int*)sp)[0] = 0x1F80u;      // MXCSR: round to nearest, all exceptions masked
  ((unsigned short*)sp)[2] = 0x037Fu;    // x87 control word default
  f->sp = sp;
#endif
}

static inline void switch_into(Fiber* f) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(&sched_fake_stack, f->stack, pool_stack_bytes);
#endif
#if BY_HOST_USE_UCONTEXT
  swapcontext(&scheduler_uc, &f->uc);
#else
  by_host_switch(&scheduler_sp, f->sp);
#endif
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(sched_fake_stack, nullptr, nullptr);
#endif
}

static inline void switch_out(Fiber* f, bool exiting) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(exiting ? nullptr : &f->asan_fake_stack, sched_stack_bottom, sched_stack_size);
#else
  (void)exiting;
#endif
#if BY_HOST_USE_UCONTEXT
  swapcontext(&f->uc, &scheduler_uc);
#else
  by_host_switch(&f->sp, scheduler_sp);
#endif
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(f->asan_fake_stack, &sched_stack_bottom, &sched_stack_size);
#endif
}

// ---- barriers ---------------------------------------------------------------------------------
static inline Fiber* need_fiber(const char* what) {
  if (!cur.fiber)
    fault("%s in a kernel launched without fibers (its source must name the barrier or warp operation "
          "so that Kernel.uses_block_sync sees it)", what);
  return cur.fiber;
}

static void try_release_block(Block* b) {
  if (b->arrived == 0 || b->arrived != b->live) return;
  for (int t = 0; t < b->nthreads; ++t)
    if (b->fibers[t].state == AT_BLOCK_BARRIER) b->fibers[t].state = RUNNABLE;
  b->took_part[b->gen & 1] = b->arrived;
  b->arrived = 0;
  b->gen++;
  b->tally[b->gen & 1] = 0;
}

static void try_release_warp(Block* b, Warp* w) {
  if (w->arrived == 0 || (w->waiting_for & w->live & ~w->arrived) != 0) return;
  Fiber* lane0 = b->fibers + (w - b->warps) * 32;
  for (int lane = 0; lane < 32; ++lane)
    if (w->arrived & (1u << lane)) lane0[lane].state = RUNNABLE;
  w->took_part[w->gen & 1] = w->arrived;
  w->arrived = 0;
  w->waiting_for = 0;
  w->only_activemask = false;
  w->gen++;
}

// __activemask returns the lanes that reach it together. A lane that went elsewhere (a block
// barrier, the end) does not come: once no thread can run, the lanes that did arrive go on.
static bool release_activemask_waiters(Fiber* fibers, long long n) {
  bool any = false;
  for (long long i = 0; i < n; ++i) {
    Fiber* f = &fibers[i];
    if (f->state == AT_WARP_BARRIER && f->warp->only_activemask) {
      Warp* w = f->warp;
      w->waiting_for = w->arrived;
      try_release_warp(f->block, w);
      any = true;
    }
  }
  return any;
}

static void try_release_grid() {
  if (L.grid_arrived == 0 || L.grid_arrived != L.live) return;
  long long n = (long long)L.nblocks * L.nthreads;
  for (long long i = 0; i < n; ++i)
    if (L.fibers[i].state == AT_GRID_BARRIER) L.fibers[i].state = RUNNABLE;
  L.grid_arrived = 0;
}

static inline void check_canary(Fiber* f) {
  const unsigned long long* c = (const unsigned long long*)f->stack;
  if (c[0] != CANARY || c[1] != CANARY)
    fault("fiber stack overflow (%zu bytes per thread): pass a larger stack_bytes to the harness",
          pool_stack_bytes);
}

static inline void suspend(Fiber* f) { switch_out(f, false); }

// Waits at the block barrier; returns the generation it completed.
static inline unsigned block_barrier(long long contribution) {
  Fiber* f = need_fiber("__syncthreads");
  Block* b = f->block;
  f->proxy_synced = f->proxy_fences;  // fences before this barrier order writes for the async proxy
  unsigned g = b->gen;
  b->tally[g & 1] += contribution;
  b->arrived++;
  f->state = AT_BLOCK_BARRIER;
  try_release_block(b);
  suspend(f);
  return g;
}

// Deposits a payload in this lane's slot and waits for the lanes of `mask` that are still alive.
static inline unsigned warp_arrive(unsigned mask, unsigned long long payload, const char* what,
                                   bool activemask = false) {
  Fiber* f = need_fiber(what);
  Warp* w = f->warp;
  unsigned g = w->gen;
  w->only_activemask = (w->arrived == 0 || w->only_activemask) && activemask;
  w->slot[g & 1][f->lane] = payload;
  w->arrived |= 1u << f->lane;
  w->waiting_for |= mask | (1u << f->lane);
  f->state = AT_WARP_BARRIER;
  try_release_warp(f->block, w);
  suspend(f);
  return g;
}

static inline int lane_id() { return cur.fiber->lane; }

template <class T>
static inline T warp_read(unsigned g, int src, T own) {
  Warp* w = cur.fiber->warp;
  if (src < 0 || src > 31 || !(w->took_part[g & 1] & (1u << src))) return own;
  T v;
  memcpy(&v, &w->slot[g & 1][src], sizeof(T));
  return v;
}

template <class T>
static inline unsigned long long to_payload(T v) {
  static_assert(sizeof(T) <= 8, "warp operations move at most 8 bytes");
  unsigned long long p = 0;
  memcpy(&p, &v, sizeof(T));
  return p;
}

// Lanes of generation g within mask whose payload is nonzero.
static inline unsigned warp_ballot(unsigned g, unsigned mask) {
  Warp* w = cur.fiber->warp;
  unsigned lanes = w->took_part[g & 1] & mask, r = 0;
  for (int l = 0; l < 32; ++l)
    if ((lanes & (1u << l)) && w->slot[g & 1][l]) r |= 1u << l;
  return r;
}

// by_part_sync(id, n): hardware barrier `id` (1..15) of n threads (bar.sync id, n on the device).
// A persistent kernel runs each sub-block of n threads of a narrower body on its own barrier,
// while the block's other threads wait elsewhere.
static inline void part_barrier(unsigned id, unsigned n) {
  Fiber* f = need_fiber("by_part_sync");
  Block* b = f->block;
  if (id < 1 || id > 15 || n == 0 || n % 32 != 0 || (int)n > b->nthreads)
    fault("by_part_sync(%u, %u): barrier 1..15 of a multiple of 32 threads, at most the block's %d", id, n,
          b->nthreads);
  b->part_arrived[id]++;
  f->part_id = id;
  f->state = AT_PART_BARRIER;
  if (b->part_arrived[id] == (int)n) {
    for (int t = 0; t < b->nthreads; ++t)
      if (b->fibers[t].state == AT_PART_BARRIER && b->fibers[t].part_id == id) b->fibers[t].state = RUNNABLE;
    b->part_arrived[id] = 0;
  }
  suspend(f);
}

static inline void grid_barrier() {
  Fiber* f = need_fiber("by_grid_sync");
  if (!(L.flags & COOPERATIVE)) fault("by_grid_sync in a kernel not launched cooperatively (Kernel.cooperative)");
  L.grid_arrived++;
  f->state = AT_GRID_BARRIER;
  try_release_grid();
  suspend(f);
}

// ---- mbarriers (state kept in the barrier's own 8 bytes of shared memory) ---------------------
// bits 0-15 pending arrivals, 16-31 expected arrivals, 32-55 transaction count (signed), 56 the
// current phase's parity, 57-63 a tag that says the word was initialised by by_mbar_init.
static const unsigned long long MBAR_TAG = 0x5Bull << 57;
static const unsigned long long MBAR_TAG_MASK = 0x7Full << 57;
static inline unsigned long long mbar_load(const unsigned char* bar) {
  unsigned long long v;
  memcpy(&v, bar, 8);
  return v;
}
// The phase of parity `parity` has completed when the current phase has the other parity.
static inline bool mbar_phase_done(const unsigned char* bar, unsigned parity) {
  return ((mbar_load(bar) >> 56) & 1ull) != (parity & 1u);
}
typedef void (*ExitHook)(Fiber*);
static ExitHook wgmma_exit_hook;  // checks that an exiting thread left no wgmma pending

// ---- running threads --------------------------------------------------------------------------
static void fiber_main() {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(nullptr, &sched_stack_bottom, &sched_stack_size);
#endif
  L.thunk(L.args);
  Fiber* f = cur.fiber;
  if (f->wgmma && wgmma_exit_hook) wgmma_exit_hook(f);
  Block* b = f->block;
  f->state = EXITED;
  b->live--;
  f->warp->live &= ~(1u << f->lane);
  L.live--;
  try_release_block(b);
  try_release_warp(b, f->warp);
  if (L.flags & COOPERATIVE) try_release_grid();
  switch_out(f, true);
  __builtin_trap();  // an exited fiber is never resumed
}

static inline void enter(Fiber* f) {
  cur.thread_idx = f->tid;
  cur.block_idx = f->block->idx;
  cur.shared = f->block->shared;
  cur.fiber = f;
  switch_into(f);
  check_canary(f);
  cur.fiber = nullptr;
}

static const char* state_name(int s) {
  switch (s) {
    case AT_BLOCK_BARRIER: return "__syncthreads";
    case AT_WARP_BARRIER: return "a warp operation";
    case AT_GRID_BARRIER: return "by_grid_sync";
    case AT_MBARRIER: return "by_mbar_wait";
    case AT_STEP: return "by_step_wait";
    case AT_PART_BARRIER: return "by_part_sync";
    default: return "?";
  }
}

[[noreturn]] static void deadlock(Fiber* fibers, long long n) {
  long long at[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  Fiber* first = nullptr;
  for (long long i = 0; i < n; ++i) {
    int s = fibers[i].state;
    if (s == AT_BLOCK_BARRIER || s == AT_WARP_BARRIER || s == AT_GRID_BARRIER || s == AT_MBARRIER || s == AT_STEP ||
        s == AT_PART_BARRIER) {
      at[s]++;
      if (!first) first = &fibers[i];
    }
  }
  snprintf(error_text, sizeof error_text,
           "kernel %s: deadlock, no thread can go on: %lld wait at __syncthreads, %lld at warp operations, "
           "%lld at by_grid_sync, %lld at by_mbar_wait (a phase that never completes: fewer arrivals or transaction bytes than expected), %lld at by_step_wait (a step whose blocks never all signal), %lld at by_part_sync; e.g. block (%u,%u,%u) thread (%u,%u,%u) waits at %s. A barrier in divergent "
           "code, or threads waiting for each other at different barriers.",
           L.kernel, at[AT_BLOCK_BARRIER], at[AT_WARP_BARRIER], at[AT_GRID_BARRIER], at[AT_MBARRIER], at[AT_STEP], at[AT_PART_BARRIER],
           first->block->idx.x,
           first->block->idx.y, first->block->idx.z, first->tid.x, first->tid.y, first->tid.z,
           state_name(first->state));
  raise_fault();
}

// Runs fibers in rounds (each runnable one until it blocks or exits) until all have exited.
static void schedule(Fiber* fibers, int n) {
  for (int i = 0; i < n; ++i) L.fiber_order[i] = i;
  while (L.live > 0) {
    if (L.flags & SHUFFLE) permute(L.fiber_order, n);
    int ran = 0;
    for (int k = 0; k < n; ++k) {
      Fiber* f = &fibers[L.fiber_order[k]];
      if (f->state == AT_MBARRIER && mbar_phase_done(f->mbar, f->mbar_parity)) f->state = RUNNABLE;
      if (f->state == AT_STEP && *f->step >= f->step_target) f->state = RUNNABLE;
      if (f->state == RUNNABLE) {
        enter(f);
        ran++;
      }
    }
    if (!ran && !release_activemask_waiters(fibers, n)) deadlock(fibers, n);
  }
}

static inline uint3 unflatten(unsigned long long i, dim3 d) {
  return uint3{(unsigned)(i % d.x), (unsigned)((i / d.x) % d.y), (unsigned)(i / ((unsigned long long)d.x * d.y))};
}

// Shared memory: NaN-patterned so that reading what no thread wrote shows up in results. The
// driver (AddressSanitizer) build gives every block its own exact-size allocation.
static unsigned char* shared_acquire(unsigned long long slot) {
  void* p = nullptr;
#if defined(BY_HOST_DRIVER)
  (void)slot;
  if (posix_memalign(&p, 16, (size_t)L.shared_bytes) != 0) fault("out of memory for shared memory");
#else
  if (!L.shared_bufs[slot]) {
    size_t n = (size_t)((L.shared_bytes + 15) / 16 * 16);
    if (posix_memalign(&p, 16, n ? n : 16) != 0) fault("out of memory for shared memory");
    L.shared_bufs[slot] = (unsigned char*)p;
  }
  p = L.shared_bufs[slot];
#endif
  memset(p, 0xFF, (size_t)L.shared_bytes);
  return (unsigned char*)p;
}

static void shared_release(unsigned char* p) {
#if defined(BY_HOST_DRIVER)
  free(p);
#else
  (void)p;
#endif
}

static void init_block(Block* b, unsigned long long linear, Fiber* fibers, Warp* warps, int slot_base) {
  b->idx = unflatten(linear, cur.grid_dim);
  b->live = L.nthreads;
  b->arrived = 0;
  for (int i = 0; i < 16; ++i) b->part_arrived[i] = 0;
  b->gen = 0;
  b->took_part[0] = b->took_part[1] = 0;
  b->tally[0] = b->tally[1] = 0;
  b->fibers = fibers;
  b->nthreads = L.nthreads;
  b->warps = warps;
  int nwarps = (L.nthreads + 31) / 32;
  for (int w = 0; w < nwarps; ++w) {
    int lanes = L.nthreads - 32 * w < 32 ? L.nthreads - 32 * w : 32;
    memset(&warps[w], 0, sizeof(Warp));
    warps[w].live = lanes == 32 ? 0xFFFFFFFFu : ((1u << lanes) - 1u);
  }
  for (int t = 0; t < L.nthreads; ++t) {
    Fiber* f = &fibers[t];
    f->tid = L.tids[t];
    f->block = b;
    f->warp = &warps[t / 32];
    f->lane = t % 32;
    f->mbar = nullptr;
    free(f->wgmma);  // a fresh block starts with no wgmma state
    f->wgmma = nullptr;
    f->proxy_fences = f->proxy_synced = 0;
    fiber_init(f, pool[slot_base + t], (size_t)((slot_base + t) * 272 % 4096));
  }
  b->shared = shared_acquire((unsigned long long)(slot_base / L.nthreads));
  if (b->proxy_writer) memset(b->proxy_writer, 0xFF, sizeof(int) * (size_t)((L.shared_bytes + 1) / 2));
}

static void run_plain() {
  for (unsigned long long k = 0; k < L.nblocks; ++k) {
    unsigned long long blk = L.order ? (unsigned long long)L.order[k] : k;
    cur.block_idx = unflatten(blk, cur.grid_dim);
    cur.shared = shared_acquire(0);
    if (L.flags & SHUFFLE) permute(L.fiber_order, L.nthreads);
    for (int t = 0; t < L.nthreads; ++t) {
      int lin = (L.flags & SHUFFLE) ? L.fiber_order[t] : t;
      cur.thread_idx = L.tids[lin];
      L.thunk(L.args);
    }
    shared_release(cur.shared);
    cur.shared = nullptr;
  }
}

static void run_fibers() {
  int nwarps = (L.nthreads + 31) / 32;
  if (!(L.flags & COOPERATIVE)) {
    pool_ensure(L.nthreads);
    for (unsigned long long k = 0; k < L.nblocks; ++k) {
      unsigned long long blk = L.order ? (unsigned long long)L.order[k] : k;
      init_block(&L.blocks[0], blk, L.fibers, L.warps, 0);
      L.live = L.nthreads;
      schedule(L.fibers, L.nthreads);
      shared_release(L.blocks[0].shared);
    }
    return;
  }
  long long total = (long long)L.nblocks * L.nthreads;
  pool_ensure((int)total);
  for (unsigned long long b = 0; b < L.nblocks; ++b)
    init_block(&L.blocks[b], b, L.fibers + b * L.nthreads, L.warps + b * nwarps, (int)(b * L.nthreads));
  L.live = (int)total;
  L.grid_arrived = 0;
  schedule(L.fibers, (int)total);
  for (unsigned long long b = 0; b < L.nblocks; ++b) shared_release(L.blocks[b].shared);
}

static void cleanup() {
  for (long long i = 0; L.fibers && i < L.nfibers; ++i) free(L.fibers[i].wgmma);
  for (unsigned long long i = 0; L.blocks && i < L.nshared; ++i) {
    free(L.blocks[i].proxy_writer);
    free(L.blocks[i].proxy_gen);
  }
  free(L.fibers);
  free(L.blocks);
  free(L.warps);
  free(L.order);
  free(L.fiber_order);
  free(L.tids);
  if (L.shared_bufs) {
#if !defined(BY_HOST_DRIVER)
    for (unsigned long long i = 0; i < L.nshared; ++i) free(L.shared_bufs[i]);
#endif
    free(L.shared_bufs);
  }
  memset(&L, 0, sizeof L);
  cur.fiber = nullptr;
  cur.shared = nullptr;
}

// ---- turning CPU faults of kernel code into harness faults (shared-library build) -------------
#if !defined(BY_HOST_DRIVER)
static const int FAULT_SIGNALS[4] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction saved_actions[4];
static stack_t saved_altstack;
static pthread_t launch_thread;
static unsigned char signal_stack[64 * 1024];

static void on_fault_signal(int sig, siginfo_t* info, void* uctx) {
  if (fault_armed && pthread_equal(pthread_self(), launch_thread)) {
    fault_armed = 0;
    const char* what = sig == SIGSEGV ? "invalid memory access (SIGSEGV)"
                       : sig == SIGBUS ? "bus error (SIGBUS)"
                       : sig == SIGFPE ? "arithmetic fault, e.g. integer division by zero (SIGFPE)"
                                       : "illegal instruction (SIGILL)";
    int n = where(error_text, sizeof error_text);
    if (n < 0 || (size_t)n >= sizeof error_text) n = 0;
    snprintf(error_text + n, sizeof error_text - n, ": %s at address %p%s", what, info->si_addr,
             sig == SIGSEGV && in_guard_page(info->si_addr)
                 ? " - a fiber stack overflow: pass a larger stack_bytes to the harness" : "");
    siglongjmp(fault_jmp, 1);
  }
  // Not a kernel's fault: hand it to whoever handled it before us.
  for (int i = 0; i < 4; ++i) {
    if (FAULT_SIGNALS[i] != sig) continue;
    struct sigaction* old = &saved_actions[i];
    if (old->sa_flags & SA_SIGINFO) {
      old->sa_sigaction(sig, info, uctx);
    } else if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
      signal(sig, SIG_DFL);  // returning re-executes the faulting instruction, now fatal
    } else {
      old->sa_handler(sig);
    }
  }
}

static void arm_signals() {
  stack_t ss;
  ss.ss_sp = signal_stack;
  ss.ss_size = sizeof signal_stack;
  ss.ss_flags = 0;
  sigaltstack(&ss, &saved_altstack);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 4; ++i) sigaction(FAULT_SIGNALS[i], &sa, &saved_actions[i]);
  launch_thread = pthread_self();
}

static void disarm_signals() {
  for (int i = 0; i < 4; ++i) sigaction(FAULT_SIGNALS[i], &saved_actions[i], nullptr);
  sigaltstack(&saved_altstack, nullptr);
}
#endif

// ---- the launch -------------------------------------------------------------------------------
static const long long MAX_COOPERATIVE_THREADS = 1 << 18;

// Runs one kernel launch; returns 0, or 1 with the fault's text in error_text.
static int launch(const char* kernel, Thunk thunk, const unsigned* grid, const unsigned* block,
                  unsigned long long shared_bytes, int flags, unsigned long long seed,
                  unsigned long long fiber_stack_bytes, void* const* args) {
  cleanup();
  error_text[0] = 0;
  unsigned long long nthreads = (unsigned long long)block[0] * block[1] * block[2];
  unsigned long long nblocks = (unsigned long long)grid[0] * grid[1] * grid[2];
  if (nthreads == 0 || nthreads > 1024 || nblocks == 0 || nblocks > (1ull << 31)) {
    snprintf(error_text, sizeof error_text, "kernel %s: bad launch shape grid (%u,%u,%u) block (%u,%u,%u)",
             kernel, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    return 1;
  }
  if ((flags & COOPERATIVE) && (long long)(nblocks * nthreads) > MAX_COOPERATIVE_THREADS) {
    snprintf(error_text, sizeof error_text, "kernel %s: cooperative grid of %llu threads is more than the host "
             "harness keeps alive at once (%lld)", kernel, nblocks * nthreads, MAX_COOPERATIVE_THREADS);
    return 1;
  }
  if (flags & COOPERATIVE) flags |= USE_FIBERS;
  stack_bytes = fiber_stack_bytes ? (size_t)fiber_stack_bytes : stack_bytes;
  rng_state = seed;
  cur.block_dim = dim3(block[0], block[1], block[2]);
  cur.grid_dim = dim3(grid[0], grid[1], grid[2]);
  L.kernel = kernel;
  L.thunk = thunk;
  L.args = args;
  L.flags = flags;
  L.nthreads = (int)nthreads;
  L.nblocks = nblocks;
  L.shared_bytes = shared_bytes;
  bool coop = (flags & COOPERATIVE) != 0;
  unsigned long long resident = coop ? nblocks : 1;
  int nwarps = (L.nthreads + 31) / 32;
  L.nshared = resident;
  L.shared_bufs = (unsigned char**)calloc((size_t)resident, sizeof(unsigned char*));
  L.fiber_order = (int*)malloc(sizeof(int) * (size_t)(resident * nthreads));
  L.tids = (uint3*)malloc(sizeof(uint3) * (size_t)nthreads);
  if (flags & USE_FIBERS) {
    L.fibers = (Fiber*)calloc((size_t)(resident * nthreads), sizeof(Fiber));
    L.nfibers = (long long)(resident * nthreads);
    L.blocks = (Block*)calloc((size_t)resident, sizeof(Block));
    L.warps = (Warp*)calloc((size_t)(resident * nwarps), sizeof(Warp));
  }
  if ((flags & SHUFFLE) && !coop) {
    L.order = (int*)malloc(sizeof(int) * (size_t)nblocks);
    if (L.order) {
      for (unsigned long long i = 0; i < nblocks; ++i) L.order[i] = (int)i;
      permute(L.order, (long long)nblocks);
    }
  }
  if (!L.shared_bufs || !L.fiber_order || !L.tids || ((flags & USE_FIBERS) && (!L.fibers || !L.blocks || !L.warps)) ||
      ((flags & SHUFFLE) && !coop && !L.order)) {
    snprintf(error_text, sizeof error_text, "kernel %s: out of memory for the launch", kernel);
    cleanup();
    return 1;
  }
  for (int i = 0; i < L.nthreads; ++i) {
    L.fiber_order[i] = i;
    L.tids[i] = unflatten((unsigned long long)i, cur.block_dim);
  }
#if !defined(BY_HOST_DRIVER)
  arm_signals();
  if (sigsetjmp(fault_jmp, 1)) {
    fault_armed = 0;
    disarm_signals();
    cleanup();
    pool_trim();
    return 1;
  }
  fault_armed = 1;
#endif
  if (flags & USE_FIBERS)
    run_fibers();
  else
    run_plain();
#if !defined(BY_HOST_DRIVER)
  fault_armed = 0;
  disarm_signals();
#endif
  cleanup();
  pool_trim();
  return 0;
}

}  // namespace by_host

#if !defined(BY_HOST_DRIVER)
BY_HOST_EXPORT const char* by_host_last_error() { return by_host::error_text; }
#endif

// ---- CUDA built-ins -------------------------------------------------------------------------
#define threadIdx (static_cast<const uint3&>(::by_host::cur.thread_idx))
#define blockIdx (static_cast<const uint3&>(::by_host::cur.block_idx))
#define blockDim (static_cast<const dim3&>(::by_host::cur.block_dim))
#define gridDim (static_cast<const dim3&>(::by_host::cur.grid_dim))
inline int by_host_warp_size() { return 32; }  // not a constant expression, as on the device
#define warpSize (by_host_warp_size())
// A reference, not a copy: it always names the running block's buffer, also at namespace scope.
#define BY_SHARED_BUFFER(name) unsigned char* const& name = ::by_host::cur.shared

inline void __syncthreads() { by_host::block_barrier(0); }
inline int __syncthreads_count(int pred) {
  unsigned g = by_host::block_barrier(pred != 0);
  return (int)by_host::cur.fiber->block->tally[g & 1];
}
inline int __syncthreads_and(int pred) {
  unsigned g = by_host::block_barrier(pred != 0);
  by_host::Block* b = by_host::cur.fiber->block;
  return b->tally[g & 1] == b->took_part[g & 1];
}
inline int __syncthreads_or(int pred) {
  unsigned g = by_host::block_barrier(pred != 0);
  return by_host::cur.fiber->block->tally[g & 1] != 0;
}
inline void __syncwarp(unsigned mask = 0xFFFFFFFFu) { by_host::warp_arrive(mask, 0, "__syncwarp"); }
inline void by_grid_sync() { by_host::grid_barrier(); }
inline void by_part_sync(unsigned id, unsigned n) { by_host::part_barrier(id, n); }
inline void __threadfence() {}
inline void __threadfence_block() {}
inline void __threadfence_system() {}
[[noreturn]] inline void __trap() { by_host::fault("__trap()"); }

inline unsigned __activemask() {
  by_host::Fiber* f = by_host::need_fiber("__activemask");
  unsigned g = by_host::warp_arrive(f->warp->live, 0, "__activemask", true);
  return f->warp->took_part[g & 1];
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
  unsigned g = by_host::warp_arrive(mask, pred != 0, "__ballot_sync");
  return by_host::warp_ballot(g, mask);
}
inline int __any_sync(unsigned mask, int pred) {
  unsigned g = by_host::warp_arrive(mask, pred != 0, "__any_sync");
  return by_host::warp_ballot(g, mask) != 0;
}
inline int __all_sync(unsigned mask, int pred) {
  unsigned g = by_host::warp_arrive(mask, pred != 0, "__all_sync");
  by_host::Warp* w = by_host::cur.fiber->warp;
  return by_host::warp_ballot(g, mask) == (w->took_part[g & 1] & mask);
}

// Shuffles, for the types CUDA overloads them on (same overload resolution as on the device).
#define BY_HOST_SHUFFLES(T)                                                                    \
  inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {                   \
    unsigned g = by_host::warp_arrive(mask, by_host::to_payload(var), "__shfl_sync");          \
    int lane = by_host::lane_id();                                                             \
    return by_host::warp_read(g, (lane & ~(width - 1)) | (src_lane & (width - 1)), var);       \
  }                                                                                            \
  inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {              \
    unsigned g = by_host::warp_arrive(mask, by_host::to_payload(var), "__shfl_up_sync");       \
    int lane = by_host::lane_id();                                                             \
    if ((unsigned)(lane & (width - 1)) < delta) return var;                                    \
    return by_host::warp_read(g, lane - (int)delta, var);                                      \
  }                                                                                            \
  inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {            \
    unsigned g = by_host::warp_arrive(mask, by_host::to_payload(var), "__shfl_down_sync");     \
    int lane = by_host::lane_id();                                                             \
    if ((unsigned)(lane & (width - 1)) + delta >= (unsigned)width) return var;                 \
    return by_host::warp_read(g, lane + (int)delta, var);                                      \
  }                                                                                            \
  inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {              \
    unsigned g = by_host::warp_arrive(mask, by_host::to_payload(var), "__shfl_xor_sync");      \
    int lane = by_host::lane_id();                                                             \
    int src = lane ^ lane_mask;                                                                \
    /* a later group of `width` lanes is out of reach: the lane keeps its own value */        \
    if (src >= (lane & ~(width - 1)) + width) return var;                                      \
    return by_host::warp_read(g, src, var);                                                    \
  }
BY_HOST_SHUFFLES(int)
BY_HOST_SHUFFLES(unsigned int)
BY_HOST_SHUFFLES(long)
BY_HOST_SHUFFLES(unsigned long)
BY_HOST_SHUFFLES(long long)
BY_HOST_SHUFFLES(unsigned long long)
BY_HOST_SHUFFLES(float)
BY_HOST_SHUFFLES(double)
#undef BY_HOST_SHUFFLES

// sm_80 warp reductions.
#define BY_HOST_WARP_REDUCE(name, T, init, combine)                                             \
  inline T name(unsigned mask, T value) {                                                       \
    unsigned g = by_host::warp_arrive(mask, by_host::to_payload(value), #name);                \
    by_host::Warp* w = by_host::cur.fiber->warp;                                                \
    unsigned lanes = w->took_part[g & 1] & mask;                                                \
    T acc = init;                                                                               \
    for (int l = 0; l < 32; ++l)                                                                \
      if (lanes & (1u << l)) {                                                                  \
        T v; memcpy(&v, &w->slot[g & 1][l], sizeof(T)); acc = combine;                          \
      }                                                                                         \
    return acc;                                                                                 \
  }
BY_HOST_WARP_REDUCE(__reduce_add_sync, int, 0, acc + v)
BY_HOST_WARP_REDUCE(__reduce_add_sync, unsigned int, 0u, acc + v)
BY_HOST_WARP_REDUCE(__reduce_min_sync, int, INT_MAX, (v < acc ? v : acc))
BY_HOST_WARP_REDUCE(__reduce_min_sync, unsigned int, 0xFFFFFFFFu, (v < acc ? v : acc))
BY_HOST_WARP_REDUCE(__reduce_max_sync, int, INT_MIN, (v > acc ? v : acc))
BY_HOST_WARP_REDUCE(__reduce_max_sync, unsigned int, 0u, (v > acc ? v : acc))
BY_HOST_WARP_REDUCE(__reduce_and_sync, unsigned int, 0xFFFFFFFFu, acc & v)
BY_HOST_WARP_REDUCE(__reduce_or_sync, unsigned int, 0u, acc | v)
BY_HOST_WARP_REDUCE(__reduce_xor_sync, unsigned int, 0u, acc ^ v)
#undef BY_HOST_WARP_REDUCE

// Atomics: fibers switch only at barriers, so a plain read-modify-write is atomic here.
#define BY_HOST_ATOMIC(name, T, update)                                                        \
  inline T name(T* address, T val) { T old = *address; *address = (update); return old; }
BY_HOST_ATOMIC(atomicAdd, int, old + val)
BY_HOST_ATOMIC(atomicAdd, unsigned int, old + val)
BY_HOST_ATOMIC(atomicAdd, unsigned long long, old + val)
BY_HOST_ATOMIC(atomicAdd, float, old + val)
BY_HOST_ATOMIC(atomicAdd, double, old + val)
BY_HOST_ATOMIC(atomicSub, int, old - val)
BY_HOST_ATOMIC(atomicSub, unsigned int, old - val)
BY_HOST_ATOMIC(atomicExch, int, val)
BY_HOST_ATOMIC(atomicExch, unsigned int, val)
BY_HOST_ATOMIC(atomicExch, unsigned long long, val)
BY_HOST_ATOMIC(atomicExch, float, val)
BY_HOST_ATOMIC(atomicMax, int, (val > old ? val : old))
BY_HOST_ATOMIC(atomicMax, unsigned int, (val > old ? val : old))
BY_HOST_ATOMIC(atomicMax, long long, (val > old ? val : old))
BY_HOST_ATOMIC(atomicMax, unsigned long long, (val > old ? val : old))
BY_HOST_ATOMIC(atomicMin, int, (val < old ? val : old))
BY_HOST_ATOMIC(atomicMin, unsigned int, (val < old ? val : old))
BY_HOST_ATOMIC(atomicMin, long long, (val < old ? val : old))
BY_HOST_ATOMIC(atomicMin, unsigned long long, (val < old ? val : old))
BY_HOST_ATOMIC(atomicAnd, int, old & val)
BY_HOST_ATOMIC(atomicAnd, unsigned int, old & val)
BY_HOST_ATOMIC(atomicAnd, unsigned long long, old & val)
BY_HOST_ATOMIC(atomicOr, int, old | val)
BY_HOST_ATOMIC(atomicOr, unsigned int, old | val)
BY_HOST_ATOMIC(atomicOr, unsigned long long, old | val)
BY_HOST_ATOMIC(atomicXor, int, old ^ val)
BY_HOST_ATOMIC(atomicXor, unsigned int, old ^ val)
BY_HOST_ATOMIC(atomicXor, unsigned long long, old ^ val)
BY_HOST_ATOMIC(atomicInc, unsigned int, (old >= val ? 0u : old + 1u))
BY_HOST_ATOMIC(atomicDec, unsigned int, ((old == 0u || old > val) ? val : old - 1u))
#undef BY_HOST_ATOMIC
#define BY_HOST_ATOMIC_CAS(T)                                                                  \
  inline T atomicCAS(T* address, T compare, T val) {                                           \
    T old = *address; if (old == compare) *address = val; return old;                          \
  }
BY_HOST_ATOMIC_CAS(int)
BY_HOST_ATOMIC_CAS(unsigned int)
BY_HOST_ATOMIC_CAS(unsigned long long)
BY_HOST_ATOMIC_CAS(unsigned short)
#undef BY_HOST_ATOMIC_CAS

// Integer min/max as CUDA declares them (float ones map to fminf/fmaxf).
#define BY_HOST_MINMAX(A, B, R)                                                                \
  inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                                 \
  inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
BY_HOST_MINMAX(int, int, int)
BY_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
BY_HOST_MINMAX(int, unsigned int, unsigned int)
BY_HOST_MINMAX(unsigned int, int, unsigned int)
BY_HOST_MINMAX(long, long, long)
BY_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
BY_HOST_MINMAX(long, unsigned long, unsigned long)
BY_HOST_MINMAX(unsigned long, long, unsigned long)
BY_HOST_MINMAX(long long, long long, long long)
BY_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
BY_HOST_MINMAX(long long, unsigned long long, unsigned long long)
BY_HOST_MINMAX(unsigned long long, long long, unsigned long long)
#undef BY_HOST_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(double a, float b) { return fmax(a, b); }

// Device intrinsics with host equivalents (the fast-math ones computed accurately).
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }   // one memory, no L1 to bypass
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __saturatef(float x) { return x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }
inline int __float2int_rn(float x) { return (int)rintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_rd(float x) { return (int)floorf(x); }
inline int __float2int_ru(float x) { return (int)ceilf(x); }
inline unsigned __float2uint_rn(float x) { return (unsigned)rintf(x); }
inline long long __float2ll_rn(float x) { return (long long)rintf(x); }
inline int __double2int_rn(double x) { return (int)rint(x); }
inline float __int2float_rn(int x) { return (float)x; }
inline float __double2float_rn(double x) { return (float)x; }
inline int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
inline unsigned __float_as_uint(float x) { unsigned r; memcpy(&r, &x, 4); return r; }
inline float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
inline float __uint_as_float(unsigned x) { float r; memcpy(&r, &x, 4); return r; }
inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }

#include "prelude_common.h"

// ---- vector memory, async copies, ldmatrix, mma.sync (docs/prelude.md) ---------------------------
// Host versions of what prelude_device.cuh adds for contraction kernels. Warp-wide instructions
// (ldmatrix, mma) exchange their operands through the warp slots like the shuffles do, so every
// lane gets exactly what the PTX ISA's fragment layouts give it on the device.
namespace by_host {

static inline void check_align(const char* what, const void* p, unsigned long long align) {
  if ((uintptr_t)p & (align - 1)) fault("%s: address %p is not %llu-byte aligned", what, p, align);
}

static inline void check_shared(const char* what, const void* p, unsigned long long n) {
  check_align(what, p, 16);
  const unsigned char* a = (const unsigned char*)p;
  if (!cur.shared || a < cur.shared || a + n > cur.shared + L.shared_bytes)
    fault("%s: address %p is not in the block's shared memory (BY_SHARED_BUFFER, %llu bytes)", what, p,
          L.shared_bytes);
}

// One 8-byte word from every lane of the warp; all 32 lanes must take part.
static inline void warp_gather(unsigned long long mine, unsigned long long* all, const char* what) {
  unsigned g = warp_arrive(0xFFFFFFFFu, mine, what);
  Warp* w = cur.fiber->warp;
  if (w->took_part[g & 1] != 0xFFFFFFFFu)
    fault("%s is warp-wide: all 32 lanes of the warp must execute it together (lanes present: 0x%08x)", what,
          w->took_part[g & 1]);
  for (int l = 0; l < 32; ++l) all[l] = w->slot[g & 1][l];
}

static inline unsigned lo32(unsigned long long v) { return (unsigned)(v & 0xFFFFFFFFull); }
static inline unsigned hi32(unsigned long long v) { return (unsigned)(v >> 32); }
static inline unsigned long long pack64(unsigned lo, unsigned hi) { return (unsigned long long)lo | ((unsigned long long)hi << 32); }

// ldmatrix .m8n8 .x{nmat} [.trans] .b16: lane l names row l%8 of matrix l/8.
static inline void ldmatrix(unsigned* r, const void* row, int nmat, bool trans, const char* what) {
  int lane = cur.fiber ? cur.fiber->lane : 0;
  if (lane < 8 * nmat) check_shared(what, row, 16);
  unsigned long long rows[32];
  warp_gather((unsigned long long)(uintptr_t)row, rows, what);
  int g = lane >> 2, t = lane & 3;
  for (int j = 0; j < nmat; ++j) {
    if (!trans) {
      memcpy(&r[j], (const unsigned char*)(uintptr_t)rows[8 * j + g] + 4 * t, 4);
    } else {
      unsigned short lo, hi;
      memcpy(&lo, (const unsigned char*)(uintptr_t)rows[8 * j + 2 * t] + 2 * g, 2);
      memcpy(&hi, (const unsigned char*)(uintptr_t)rows[8 * j + 2 * t + 1] + 2 * g, 2);
      r[j] = (unsigned)lo | ((unsigned)hi << 16);
    }
  }
  // One instruction on the device: no lane goes on (and stores) before every lane has loaded.
  warp_arrive(0xFFFFFFFFu, 0, what);
}

enum MmaKind { MMA_F16 = 0, MMA_BF16 = 1, MMA_TF32 = 2 };

static inline double mma_half(unsigned reg, int high, int kind) {
  unsigned short h = (unsigned short)(high ? reg >> 16 : reg & 0xFFFFu);
  return kind == MMA_F16 ? (double)by_f16_bits_to_f32(h) : (double)by_bf16_bits_to_f32(h);
}

// D = A * B + C for one warp. Products are exact (in double), the sum over k and C is carried
// in double and rounded to float once. tf32 operands: the 13 low mantissa bits are ignored.
static inline void mma(float* d, const unsigned* a, const unsigned* b, const float* c, int kind, const char* what) {
  const float c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
  unsigned long long wa0[32], wa1[32], wb[32];
  warp_gather(pack64(a[0], a[1]), wa0, what);
  warp_gather(pack64(a[2], a[3]), wa1, what);
  warp_gather(pack64(b[0], b[1]), wb, what);
  const int lane = cur.fiber->lane, g = lane >> 2, t = lane & 3;
  const int K = kind == MMA_TF32 ? 8 : 16;
  double arow[2][16], bcol[2][16];  // rows g, g+8 of A; columns 2t, 2t+1 of B
  for (int tt = 0; tt < 4; ++tt) {
    const unsigned long long x0 = wa0[4 * g + tt], x1 = wa1[4 * g + tt];
    if (kind == MMA_TF32) {
      // a0 (g, tt), a1 (g+8, tt), a2 (g, tt+4), a3 (g+8, tt+4)
      arow[0][tt] = by_tf32_to_float(lo32(x0));
      arow[1][tt] = by_tf32_to_float(hi32(x0));
      arow[0][tt + 4] = by_tf32_to_float(lo32(x1));
      arow[1][tt + 4] = by_tf32_to_float(hi32(x1));
    } else {
      // a0 (g, 2tt..2tt+1), a1 (g+8, 2tt..), a2 (g, 2tt+8..), a3 (g+8, 2tt+8..)
      for (int h = 0; h < 2; ++h) {
        arow[0][2 * tt + h] = mma_half(lo32(x0), h, kind);
        arow[1][2 * tt + h] = mma_half(hi32(x0), h, kind);
        arow[0][2 * tt + 8 + h] = mma_half(lo32(x1), h, kind);
        arow[1][2 * tt + 8 + h] = mma_half(hi32(x1), h, kind);
      }
    }
    for (int n = 0; n < 2; ++n) {
      const unsigned long long y = wb[4 * (2 * t + n) + tt];  // the lane whose groupID is the column
      if (kind == MMA_TF32) {
        // b0 (tt, col), b1 (tt+4, col)
        bcol[n][tt] = by_tf32_to_float(lo32(y));
        bcol[n][tt + 4] = by_tf32_to_float(hi32(y));
      } else {
        // b0 (2tt..2tt+1, col), b1 (2tt+8..2tt+9, col)
        for (int h = 0; h < 2; ++h) {
          bcol[n][2 * tt + h] = mma_half(lo32(y), h, kind);
          bcol[n][2 * tt + 8 + h] = mma_half(hi32(y), h, kind);
        }
      }
    }
  }
  double acc[4] = {c0, c1, c2, c3};  // (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)
  for (int k = 0; k < K; ++k) {
    acc[0] += arow[0][k] * bcol[0][k];
    acc[1] += arow[0][k] * bcol[1][k];
    acc[2] += arow[1][k] * bcol[0][k];
    acc[3] += arow[1][k] * bcol[1][k];
  }
  for (int i = 0; i < 4; ++i) d[i] = (float)acc[i];
}

// mma m16n8k32 on 8-bit integers (s8/u8 each side), s32 accumulators: D = A * B + C for one warp.
// The fragments hold four bytes a register where the 16-bit types hold two, at the same byte
// positions (so ldmatrix loads them alike): A (g, 4t..4t+3), (g+8, ..), (g, 16+4t..), (g+8, 16+4t..);
// B (k 4t..4t+3, column g), (k 16+4t.., column g). The sum wraps modulo 2^32, as the instruction
// does without .satfinite.
static inline int mma_byte(unsigned reg, int i, bool is_signed) {
  const unsigned b = (reg >> (8 * i)) & 0xFFu;
  return is_signed ? (int)(signed char)b : (int)b;
}

static inline void mma_i8(int* d, const unsigned* a, const unsigned* b, const int* c, bool a_signed, bool b_signed,
                          const char* what) {
  const int c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
  unsigned long long wa0[32], wa1[32], wb[32];
  warp_gather(pack64(a[0], a[1]), wa0, what);
  warp_gather(pack64(a[2], a[3]), wa1, what);
  warp_gather(pack64(b[0], b[1]), wb, what);
  const int lane = cur.fiber->lane, g = lane >> 2, t = lane & 3;
  int arow[2][32], bcol[2][32];  // rows g, g+8 of A; columns 2t, 2t+1 of B
  for (int tt = 0; tt < 4; ++tt) {
    const unsigned long long x0 = wa0[4 * g + tt], x1 = wa1[4 * g + tt];
    for (int i = 0; i < 4; ++i) {
      arow[0][4 * tt + i] = mma_byte(lo32(x0), i, a_signed);
      arow[1][4 * tt + i] = mma_byte(hi32(x0), i, a_signed);
      arow[0][16 + 4 * tt + i] = mma_byte(lo32(x1), i, a_signed);
      arow[1][16 + 4 * tt + i] = mma_byte(hi32(x1), i, a_signed);
    }
    for (int n = 0; n < 2; ++n) {
      const unsigned long long y = wb[4 * (2 * t + n) + tt];  // the lane whose groupID is the column
      for (int i = 0; i < 4; ++i) {
        bcol[n][4 * tt + i] = mma_byte(lo32(y), i, b_signed);
        bcol[n][16 + 4 * tt + i] = mma_byte(hi32(y), i, b_signed);
      }
    }
  }
  unsigned acc[4] = {(unsigned)c0, (unsigned)c1, (unsigned)c2, (unsigned)c3};  // unsigned: wraps, defined
  for (int k = 0; k < 32; ++k) {
    acc[0] += (unsigned)(arow[0][k] * bcol[0][k]);
    acc[1] += (unsigned)(arow[0][k] * bcol[1][k]);
    acc[2] += (unsigned)(arow[1][k] * bcol[0][k]);
    acc[3] += (unsigned)(arow[1][k] * bcol[1][k]);
  }
  for (int i = 0; i < 4; ++i) d[i] = (int)acc[i];
}

// mma.sp m16n8k32 (f16/bf16), sparsity selector 0, ordered metadata: D = A * B + C for one warp,
// A 16x32 with two kept values in every 4-wide chunk along k. The compressed 16x16 A comes as a
// dense m16n8k16 A fragment; B as four registers (k = 2t + 8i, +1; column groupID); lane 4g's
// metadata covers k 0-15 and lane 4g + 1's k 16-31, of row g in the low and row g + 8 in the
// high 16 bits, a nibble per chunk: kept positions p0 < p1 in bits 0-1 and 2-3. Unordered or
// repeated positions fault (undefined on the device). Exact products, one rounding, as mma.
static inline void mma_sp(float* d, const unsigned* a, const unsigned* b, const float* c, unsigned e, int kind,
                          const char* what) {
  const float c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
  unsigned long long wa0[32], wa1[32], wb0[32], wb1[32], we[32];
  warp_gather(pack64(a[0], a[1]), wa0, what);
  warp_gather(pack64(a[2], a[3]), wa1, what);
  warp_gather(pack64(b[0], b[1]), wb0, what);
  warp_gather(pack64(b[2], b[3]), wb1, what);
  warp_gather((unsigned long long)e, we, what);
  const int lane = cur.fiber->lane, g = lane >> 2, t = lane & 3;
  double arow[2][32], bcol[2][32];  // rows g, g+8 of the expanded A; columns 2t, 2t+1 of B
  for (int hi = 0; hi < 2; ++hi) {
    for (int k = 0; k < 32; ++k) arow[hi][k] = 0.0;
    for (int chunk = 0; chunk < 8; ++chunk) {
      const unsigned meta = (unsigned)we[4 * g + chunk / 4] >> (16 * hi);
      const unsigned nib = (meta >> (4 * (chunk % 4))) & 0xFu, p0 = nib & 3u, p1 = nib >> 2;
      if (p0 >= p1)
        fault("%s: metadata of row %d, k chunk %d is 0x%x: its kept positions must increase (ordered metadata)", what,
              g + 8 * hi, chunk, nib);
      for (int j = 0; j < 2; ++j) {
        // compressed column cc = 2 * chunk + j sits in lane 4g + (cc % 8) / 2, register hi + 2 * (cc >= 8)
        const int cc = 2 * chunk + j;
        const unsigned long long w = (cc >= 8 ? wa1 : wa0)[4 * g + (cc % 8) / 2];
        const unsigned reg = hi ? hi32(w) : lo32(w);
        arow[hi][4 * chunk + (j ? p1 : p0)] = mma_half(reg, cc & 1, kind);
      }
    }
  }
  for (int n = 0; n < 2; ++n)
    for (int tt = 0; tt < 4; ++tt) {
      const int src = 4 * (2 * t + n) + tt;  // the lane whose groupID is the column
      for (int i = 0; i < 4; ++i) {
        const unsigned reg = i == 0 ? lo32(wb0[src]) : i == 1 ? hi32(wb0[src]) : i == 2 ? lo32(wb1[src]) : hi32(wb1[src]);
        for (int h = 0; h < 2; ++h) bcol[n][2 * tt + 8 * i + h] = mma_half(reg, h, kind);
      }
    }
  double acc[4] = {c0, c1, c2, c3};
  for (int k = 0; k < 32; ++k) {
    acc[0] += arow[0][k] * bcol[0][k];
    acc[1] += arow[0][k] * bcol[1][k];
    acc[2] += arow[1][k] * bcol[0][k];
    acc[3] += arow[1][k] * bcol[1][k];
  }
  for (int i = 0; i < 4; ++i) d[i] = (float)acc[i];
}

}  // namespace by_host

inline float4 by_ld_global_v4(const float* p) { by_host::check_align("by_ld_global_v4", p, 16); float4 v; memcpy(&v, p, 16); return v; }
inline int4 by_ld_global_v4(const int* p) { by_host::check_align("by_ld_global_v4", p, 16); int4 v; memcpy(&v, p, 16); return v; }
inline uint4 by_ld_global_v4(const unsigned int* p) { by_host::check_align("by_ld_global_v4", p, 16); uint4 v; memcpy(&v, p, 16); return v; }
inline uint4 by_ld_global_b128(const void* p) { by_host::check_align("by_ld_global_b128", p, 16); uint4 v; memcpy(&v, p, 16); return v; }
inline uint4 by_ld_shared_b128(const void* p) { by_host::check_shared("by_ld_shared_b128", p, 16); uint4 v; memcpy(&v, p, 16); return v; }
inline float4 by_ld_shared_v4(const float* p) { by_host::check_shared("by_ld_shared_v4", p, 16); float4 v; memcpy(&v, p, 16); return v; }
inline float2 by_ld_global_v2(const float* p) { by_host::check_align("by_ld_global_v2", p, 8); float2 v; memcpy(&v, p, 8); return v; }
inline void by_st_global_v4(float* p, float4 v) { by_host::check_align("by_st_global_v4", p, 16); memcpy(p, &v, 16); }
inline void by_st_global_v4(int* p, int4 v) { by_host::check_align("by_st_global_v4", p, 16); memcpy(p, &v, 16); }
inline void by_st_global_v4(unsigned int* p, uint4 v) { by_host::check_align("by_st_global_v4", p, 16); memcpy(p, &v, 16); }
inline void by_st_global_b128(void* p, uint4 v) { by_host::check_align("by_st_global_b128", p, 16); memcpy(p, &v, 16); }
inline void by_st_global_v2(float* p, float2 v) { by_host::check_align("by_st_global_v2", p, 8); memcpy(p, &v, 8); }

// Offsets into the block's shared buffer stand in for shared state space addresses.
inline unsigned int by_smem_addr(const void* p) {
  return (unsigned int)((const unsigned char*)p - by_host::cur.shared);
}

// Asynchronous copies are done at once (the copy is complete when by_cp_async_16 returns) and the
// waits do nothing: one legal order of the device's. A kernel that reads the data before its
// by_cp_async_wait and __syncthreads is wrong on the device but not caught here.
inline void by_cp_async_16(void* smem_dst, const void* gmem_src) {
  by_host::check_shared("by_cp_async_16", smem_dst, 16);
  by_host::check_align("by_cp_async_16 (source)", gmem_src, 16);
  memcpy(smem_dst, gmem_src, 16);
}
inline void by_cp_async_16_zfill(void* smem_dst, const void* gmem_src, int src_bytes) {
  by_host::check_shared("by_cp_async_16_zfill", smem_dst, 16);
  by_host::check_align("by_cp_async_16_zfill (source)", gmem_src, 16);
  if (src_bytes < 0 || src_bytes > 16) by_host::fault("by_cp_async_16_zfill: src_bytes %d is not in 0..16", src_bytes);
  if (src_bytes) memcpy(smem_dst, gmem_src, (size_t)src_bytes);
  memset((unsigned char*)smem_dst + src_bytes, 0, (size_t)(16 - src_bytes));
}
inline void by_cp_async_commit() {}
template <int N> inline void by_cp_async_wait() { static_assert(N >= 0, "wait_group takes N >= 0"); }
inline void by_cp_async_wait_all() {}

inline void by_ldmatrix_x1(unsigned int* r, const void* p) { by_host::ldmatrix(r, p, 1, false, "by_ldmatrix_x1"); }
inline void by_ldmatrix_x2(unsigned int* r, const void* p) { by_host::ldmatrix(r, p, 2, false, "by_ldmatrix_x2"); }
inline void by_ldmatrix_x4(unsigned int* r, const void* p) { by_host::ldmatrix(r, p, 4, false, "by_ldmatrix_x4"); }
inline void by_ldmatrix_x1_trans(unsigned int* r, const void* p) { by_host::ldmatrix(r, p, 1, true, "by_ldmatrix_x1_trans"); }
inline void by_ldmatrix_x2_trans(unsigned int* r, const void* p) { by_host::ldmatrix(r, p, 2, true, "by_ldmatrix_x2_trans"); }
inline void by_ldmatrix_x4_trans(unsigned int* r, const void* p) { by_host::ldmatrix(r, p, 4, true, "by_ldmatrix_x4_trans"); }

inline unsigned int by_lane_id() {
  const uint3 t = by_host::cur.thread_idx;
  const dim3 d = by_host::cur.block_dim;
  return (t.x + d.x * (t.y + d.y * t.z)) & 31u;
}

inline void by_mma_m16n8k16_f16_f32(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
  by_host::mma(d, a, b, c, by_host::MMA_F16, "by_mma_m16n8k16_f16_f32");
}
inline void by_mma_m16n8k16_bf16_f32(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
  by_host::mma(d, a, b, c, by_host::MMA_BF16, "by_mma_m16n8k16_bf16_f32");
}
inline void by_mma_m16n8k8_tf32_f32(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
  by_host::mma(d, a, b, c, by_host::MMA_TF32, "by_mma_m16n8k8_tf32_f32");
}
inline void by_mma_m16n8k32_s8s8_s32(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  by_host::mma_i8(d, a, b, c, true, true, "by_mma_m16n8k32_s8s8_s32");
}
inline void by_mma_m16n8k32_s8u8_s32(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  by_host::mma_i8(d, a, b, c, true, false, "by_mma_m16n8k32_s8u8_s32");
}
inline void by_mma_m16n8k32_u8s8_s32(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  by_host::mma_i8(d, a, b, c, false, true, "by_mma_m16n8k32_u8s8_s32");
}
inline void by_mma_m16n8k32_u8u8_s32(int* d, const unsigned int* a, const unsigned int* b, const int* c) {
  by_host::mma_i8(d, a, b, c, false, false, "by_mma_m16n8k32_u8u8_s32");
}
inline void by_mma_sp_m16n8k32_f16_f32(float* d, const unsigned int* a, const unsigned int* b, const float* c,
                                       unsigned int e) {
  by_host::mma_sp(d, a, b, c, e, by_host::MMA_F16, "by_mma_sp_m16n8k32_f16_f32");
}
inline void by_mma_sp_m16n8k32_bf16_f32(float* d, const unsigned int* a, const unsigned int* b, const float* c,
                                        unsigned int e) {
  by_host::mma_sp(d, a, b, c, e, by_host::MMA_BF16, "by_mma_sp_m16n8k32_bf16_f32");
}

// ---- Hopper: tensor maps, mbarriers, bulk tensor copies, warpgroup mma (docs/prelude.md) --------
// The host versions are strict where the device would silently misbehave: a misaligned address,
// an uninitialised mbarrier, more transaction bytes than expected, a wgmma outside a whole
// warpgroup, without a fence, or with accumulators read before its wait are all faults or NaNs.
//
// A tensor map: what cuTensorMapEncodeTiled encodes, for the emulated copy engine. The launcher
// builds one per Kernel.tensor_maps entry from the pointer argument it names and passes it by value.
struct by_tensor_map {
  unsigned long long tag;
  const unsigned char* base;
  int rank, elem_bytes, swizzle;             // swizzle: bytes of the pattern's row (128) or 0
  unsigned long long dims[5], strides[5];    // extents (innermost first); byte strides, strides[0] = element
  unsigned box[5];
};

namespace by_host {

static const unsigned long long TENSOR_MAP_TAG = 0x7E2503A9B1D4C6F1ull;

// The map of a launch argument; the rules are cuTensorMapEncodeTiled's (checked when a thread starts).
static inline by_tensor_map tensor_map_make(const void* base, int rank, const unsigned long long* dims,
                                            const unsigned long long* strides, const unsigned* box, int elem_bytes,
                                            int swizzle) {
  by_tensor_map m;
  memset(&m, 0, sizeof m);
  m.tag = TENSOR_MAP_TAG;
  m.base = (const unsigned char*)base;
  m.rank = rank;
  m.elem_bytes = elem_bytes;
  m.swizzle = swizzle;
  if (rank < 1 || rank > 5) fault("tensor map: rank %d is not 1..5", rank);
  if ((uintptr_t)base & 15) fault("tensor map: global address %p is not 16-byte aligned", base);
  if (swizzle != 0 && swizzle != 128) fault("tensor map: swizzle %d is not emulated (0 or 128)", swizzle);
  m.strides[0] = (unsigned long long)elem_bytes;
  for (int i = 0; i < rank; ++i) {
    m.dims[i] = dims[i];
    m.box[i] = box[i];
    if (dims[i] < 1 || box[i] < 1 || box[i] > 256) fault("tensor map: dim %d extent %llu box %u", i, dims[i], box[i]);
    if (i > 0) {
      m.strides[i] = strides[i - 1];
      if (strides[i - 1] % 16) fault("tensor map: stride of dim %d (%llu bytes) is not a multiple of 16", i, strides[i - 1]);
    }
  }
  if (swizzle && box[0] * (unsigned)elem_bytes != (unsigned)swizzle)
    fault("tensor map: the inner box (%u x %d bytes) must be the swizzle's %d bytes (the only case emulated)", box[0],
          elem_bytes, swizzle);
  return m;
}

// The shared-state address (offset into the block's buffer, as by_smem_addr gives) of n bytes at p,
// which must lie in the buffer with the address `align`-aligned.
static inline unsigned shared_offset(const char* what, const void* p, unsigned long long n, unsigned long long align) {
  const unsigned char* a = (const unsigned char*)p;
  if (!cur.shared || a < cur.shared || a + n > cur.shared + L.shared_bytes)
    fault("%s: address %p is not in the block's shared memory (BY_SHARED_BUFFER, %llu bytes)", what, p, L.shared_bytes);
  const unsigned off = (unsigned)(a - cur.shared);
  if (off & (align - 1)) fault("%s: shared address 0x%x is not %llu-byte aligned", what, off, align);
  return off;
}

static inline unsigned long long mbar_checked(const char* what, const void* bar) {
  shared_offset(what, bar, 8, 8);
  unsigned long long v = mbar_load((const unsigned char*)bar);
  if ((v & MBAR_TAG_MASK) != MBAR_TAG) fault("%s: the mbarrier at %p was not initialised (by_mbar_init)", what, bar);
  return v;
}

static inline void mbar_store(void* bar, long long pending, long long expected, long long tx, unsigned long long phase) {
  unsigned long long v = (unsigned long long)pending | ((unsigned long long)expected << 16) |
                         (((unsigned long long)tx & 0xFFFFFFull) << 32) | ((phase & 1ull) << 56) | MBAR_TAG;
  memcpy(bar, &v, 8);
}

// One arrival and/or a change of the transaction count; completes the phase at zero of both.
static inline void mbar_update(const char* what, void* bar, int arrivals, long long tx_delta) {
  unsigned long long v = mbar_checked(what, bar);
  long long pending = (long long)(v & 0xFFFF), expected = (long long)((v >> 16) & 0xFFFF);
  long long tx = (long long)((v >> 32) & 0xFFFFFF);
  if (tx & 0x800000) tx -= 0x1000000;
  unsigned long long phase = (v >> 56) & 1ull;
  if (arrivals > pending) fault("%s: more arrivals than the mbarrier's count %lld in one phase", what, expected);
  pending -= arrivals;
  tx += tx_delta;
  // Stricter than PTX (which lets a copy complete before its expect_tx): the copy engine here is
  // instantaneous, so bytes beyond the announced count always mean a wrong expect_tx.
  if (tx < 0) fault("%s: %lld more transaction bytes arrived than by_mbar_arrive_expect_tx announced", what, -tx);
  if (tx >= (1 << 20)) fault("%s: transaction count %lld exceeds the mbarrier's range", what, tx);
  if (pending == 0 && tx == 0) mbar_store(bar, expected, expected, 0, phase ^ 1ull);
  else mbar_store(bar, pending, expected, tx, phase);
}

// ---- generic vs async proxy -------------------------------------------------------------------
// wgmma reads shared memory through the async proxy; bytes ordinary stores wrote reach it only
// after fence.proxy.async by the writing thread (before the barrier the wgmma follows). Per 2-byte
// unit of the block's shared memory the harness keeps the last writer: PROXY_NONE (nothing tracked
// since the block started), PROXY_ASYNC (the copy engine), or the linear index of the thread whose
// by_st_shared wrote it, with that thread's fence count then. A wgmma reading a unit whose writer
// has not fenced since, and then reached a __syncthreads, faults; so does one reading a PROXY_NONE unit, since a plain C++ store (not
// through by_st_shared) cannot be seen here and its fence cannot be checked.
static const int PROXY_NONE = -1, PROXY_ASYNC = -2;

static Block* proxy_block() { return cur.fiber ? cur.fiber->block : nullptr; }

static void proxy_units(Block* b) {
  if (b->proxy_writer) return;
  const size_t n = (size_t)((L.shared_bytes + 1) / 2);
  b->proxy_writer = (int*)malloc(sizeof(int) * (n ? n : 1));
  b->proxy_gen = (unsigned*)calloc(n ? n : 1, sizeof(unsigned));
  if (!b->proxy_writer || !b->proxy_gen) fault("out of memory for the async-proxy check");
  memset(b->proxy_writer, 0xFF, sizeof(int) * n);  // PROXY_NONE
}

// Records a write of n bytes at shared offset off by `writer` (a thread index or PROXY_ASYNC).
static void proxy_mark(unsigned off, unsigned long long n, int writer) {
  Block* b = proxy_block();
  if (!b || !n) return;  // without fibers there is no wgmma to read it
  proxy_units(b);
  const unsigned gen = writer >= 0 ? b->fibers[writer].proxy_fences : 0u;
  for (unsigned long long u = off / 2; u <= (off + n - 1) / 2; ++u) {
    b->proxy_writer[u] = writer;
    b->proxy_gen[u] = gen;
  }
}

// The check of one 2-byte unit an async-proxy read (wgmma) is about to take.
static void proxy_check_read(const char* what, unsigned off) {
  Block* b = proxy_block();
  if (!b || (unsigned long long)off + 2 > L.shared_bytes) return;  // the read itself faults on range
  proxy_units(b);
  const int w = b->proxy_writer[off / 2];
  if (w == PROXY_ASYNC) return;
  if (w == PROXY_NONE)
    fault("%s reads shared address 0x%x, which neither the copy engine nor a by_st_shared store wrote in this "
          "block (a plain store's fence.proxy.async cannot be checked: write wgmma operands with by_st_shared)",
          what, off);
  if (b->fibers[w].proxy_fences == b->proxy_gen[off / 2])
    fault("%s reads shared address 0x%x, written by thread %d's by_st_shared with no by_fence_proxy_async by that "
          "thread since (each writing thread fences before the barrier that precedes the wgmma)", what, off, w);
  if (b->fibers[w].proxy_synced <= b->proxy_gen[off / 2])
    fault("%s reads shared address 0x%x, written by thread %d's by_st_shared, whose by_fence_proxy_async came after "
          "its last __syncthreads (the fence must precede the barrier that precedes the wgmma)", what, off, w);
}

// The emulated copy engine: the box at coordinates c, zero outside the tensor, rows of box[0]
// elements laid out one after another with the 128-byte swizzle applied to shared addresses.
static inline void tma_load(void* dst, const by_tensor_map* m, const int* c, int rank, void* bar, const char* what) {
  if (m->tag != TENSOR_MAP_TAG) fault("%s: not a tensor map (a __grid_constant__ by_tensor_map parameter)", what);
  if (m->rank != rank) fault("%s: a %dd copy with a rank-%d tensor map", what, rank, m->rank);
  unsigned long long elems = 1;
  for (int i = 0; i < rank; ++i) elems *= m->box[i];
  const unsigned long long bytes = elems * (unsigned long long)m->elem_bytes;
  const unsigned base = shared_offset(what, dst, bytes, m->swizzle ? 1024 : 128);
  mbar_checked(what, bar);
  long long idx[5] = {0, 0, 0, 0, 0};
  for (unsigned long long e = 0; e < elems; ++e) {
    unsigned long long rem = e;
    bool inside = true;
    const unsigned char* src = m->base;
    for (int i = 0; i < rank; ++i) {
      idx[i] = (long long)(rem % m->box[i]);
      rem /= m->box[i];
      const long long g = (long long)c[i] + idx[i];
      if (g < 0 || g >= (long long)m->dims[i]) inside = false;
      else src += (unsigned long long)g * m->strides[i];
    }
    unsigned a = base + (unsigned)(e * (unsigned long long)m->elem_bytes);
    if (m->swizzle == 128) a = (unsigned)by_swizzle_bits((int)a, 3, 4, 3);
    if (inside) memcpy(cur.shared + a, src, (size_t)m->elem_bytes);
    else memset(cur.shared + a, 0, (size_t)m->elem_bytes);
    proxy_mark(a, (unsigned long long)m->elem_bytes, PROXY_ASYNC);
  }
  mbar_update(what, bar, 0, -(long long)bytes);
}

// ---- wgmma -------------------------------------------------------------------------------------
// Each thread records its wgmma.mma_async operations and runs them at the wait that retires
// their group, reading shared memory then (as late as the device may). Until then the
// accumulator registers hold NaN: a kernel that reads them before by_wgmma_wait gets NaNs.
static const int WGMMA_MAX_OPS = 64, WGMMA_MAX_ACC = 4;
struct WgmmaOp {
  float* d;
  int n, ta, tb, kind, scale_d, group;  // group: -1 until committed
  unsigned long long da, db;
};
struct WgmmaAcc {
  float* d;
  int n;
  float v[128];  // the accumulator chain's value as the retired operations leave it
};
struct WgmmaState {
  bool fenced;
  int nops, committed, nacc;
  WgmmaOp ops[WGMMA_MAX_OPS];
  WgmmaAcc acc[WGMMA_MAX_ACC];
};

static inline int linear_tid(const Fiber* f) {
  return (int)(f->tid.x + cur.block_dim.x * (f->tid.y + cur.block_dim.y * f->tid.z));
}

static void wgmma_on_exit(Fiber* f) {
  WgmmaState* s = (WgmmaState*)f->wgmma;
  if (s->nops)
    fault("the thread exits with %d wgmma operation(s) not retired by by_wgmma_commit + by_wgmma_wait", s->nops);
}

// The warpgroup-wide checks every wgmma instruction does; returns the thread's state.
static WgmmaState* wgmma_enter(const char* what, unsigned long long uniform) {
  Fiber* f = need_fiber(what);
  if (L.nthreads % 128)
    fault("%s: a block of %d threads is not whole warpgroups (4 warps, 128 threads, starting at a warp index "
          "divisible by 4)", what, L.nthreads);
  unsigned long long all[32];
  warp_gather(uniform, all, what);
  for (int l = 0; l < 32; ++l)
    if (all[l] != all[0]) fault("%s: operands differ between lanes of the warp (lane 0: 0x%llx, lane %d: 0x%llx)",
                                what, all[0], l, all[l]);
  if (!f->wgmma) {
    f->wgmma = calloc(1, sizeof(WgmmaState));
    if (!f->wgmma) fault("out of memory for wgmma state");
    wgmma_exit_hook = wgmma_on_exit;
  }
  return (WgmmaState*)f->wgmma;
}

struct WgmmaDesc {
  unsigned start, lbo, sbo;
};

static inline WgmmaDesc wgmma_decode(const char* what, unsigned long long desc) {
  WgmmaDesc d;
  d.start = (unsigned)(desc & 0x3FFFull) << 4;
  d.lbo = (unsigned)((desc >> 16) & 0x3FFFull) << 4;
  d.sbo = (unsigned)((desc >> 32) & 0x3FFFull) << 4;
  const unsigned base_offset = (unsigned)((desc >> 49) & 7ull), mode = (unsigned)(desc >> 62);
  if (mode != 1) fault("%s: descriptor swizzle mode %u is not emulated (1: 128-byte)", what, mode);
  if (base_offset != 0) fault("%s: descriptor base offset %u is not emulated (0)", what, base_offset);
  if ((d.start >> 7) & 7u)
    fault("%s: descriptor start address 0x%x is not within the first 128 bytes of a 1024-byte swizzle atom", what,
          d.start);
  return d;
}

// The shared address of element (mn, k) of a 128-byte swizzled 16-bit operand (prelude_common.h).
static inline unsigned wgmma_addr(const WgmmaDesc& d, int mn, int k, int mn_major) {
  unsigned a = mn_major ? d.start + (unsigned)(mn / 64) * d.lbo + 2u * (unsigned)(mn % 64) + (unsigned)(k / 8) * d.sbo +
                              (unsigned)(k % 8) * 128u
                        : d.start + (unsigned)(mn / 8) * d.sbo + (unsigned)(mn % 8) * 128u + 2u * (unsigned)k;
  return (unsigned)by_swizzle_bits((int)a, 3, 4, 3);
}

static inline double wgmma_elem(const char* what, const WgmmaDesc& d, int mn, int k, int mn_major, int kind) {
  const unsigned a = wgmma_addr(d, mn, k, mn_major);
  if ((unsigned long long)a + 2 > L.shared_bytes)
    fault("%s: operand element (%d, %d) at shared address 0x%x is past the block's %llu bytes", what, mn, k, a,
          L.shared_bytes);
  unsigned short h;
  memcpy(&h, cur.shared + a, 2);
  return kind == MMA_F16 ? (double)by_f16_bits_to_f32(h) : (double)by_bf16_bits_to_f32(h);
}

static inline WgmmaAcc* wgmma_acc(WgmmaState* s, float* d) {
  for (int i = 0; i < s->nacc; ++i)
    if (s->acc[i].d == d) return &s->acc[i];
  return nullptr;
}

// D (64 x n) = A (64 x 16) * B (16 x n) + (scale_d ? D : 0) for this thread's fragment: warp w of
// the warpgroup holds rows 16w..16w+15; lane (g = lane / 4, t = lane % 4) register i holds row
// 16w + g + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2t + i % 2 (PTX ISA, "Register Fragments and
// Shared Memory Matrix Layouts" for wgmma .m64nNk16, matrix D).
static void wgmma_run(const WgmmaOp& op, float* acc, const char* what) {
  const int lin = linear_tid(cur.fiber), w = (lin % 128) / 32, lane = lin % 32, g = lane / 4, t = lane % 4;
  const WgmmaDesc da = wgmma_decode(what, op.da), db = wgmma_decode(what, op.db);
  double arow[2][16];
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 16; ++k) arow[h][k] = wgmma_elem(what, da, 16 * w + g + 8 * h, k, op.ta, op.kind);
  for (int j = 0; j < op.n / 8; ++j) {
    double bcol[2][16];
    for (int c = 0; c < 2; ++c)
      for (int k = 0; k < 16; ++k) bcol[c][k] = wgmma_elem(what, db, 8 * j + 2 * t + c, k, op.tb, op.kind);
    for (int q = 0; q < 4; ++q) {
      const int h = (q >> 1) & 1, c = q & 1;
      double sum = op.scale_d ? (double)acc[4 * j + q] : 0.0;
      for (int k = 0; k < 16; ++k) sum += arow[h][k] * bcol[c][k];
      acc[4 * j + q] = (float)sum;
    }
  }
}

// The async-proxy check of the shared units this thread's part of a wgmma reads (its A rows and
// B columns, as wgmma_run reads them later): done at issue, the latest point the device allows.
static void proxy_check_operands(const char* what, const WgmmaDesc& da, const WgmmaDesc& db, int ta, int tb, int n) {
  const int lin = linear_tid(cur.fiber), w = (lin % 128) / 32, lane = lin % 32, g = lane / 4, t = lane % 4;
  for (int k = 0; k < 16; ++k) {
    for (int h = 0; h < 2; ++h) proxy_check_read(what, wgmma_addr(da, 16 * w + g + 8 * h, k, ta));
    for (int j = 0; j < n / 8; ++j)
      for (int c = 0; c < 2; ++c) proxy_check_read(what, wgmma_addr(db, 8 * j + 2 * t + c, k, tb));
  }
}

static void wgmma_issue(float* d, int n, unsigned long long da, unsigned long long db, int ta, int tb, int kind,
                        int scale_d, const char* what) {
  WgmmaState* s = wgmma_enter(what, da ^ (db * 0x9E3779B97F4A7C15ull) ^ (unsigned long long)(scale_d != 0));
  if (!s->fenced)
    fault("%s without by_wgmma_fence() since the warpgroup last waited (accumulators may still be in use)", what);
  proxy_check_operands(what, wgmma_decode(what, da), wgmma_decode(what, db), ta, tb, n);
  if (s->nops == WGMMA_MAX_OPS) fault("%s: more than %d wgmma operations in flight", what, WGMMA_MAX_OPS);
  if (!wgmma_acc(s, d)) {
    if (s->nacc == WGMMA_MAX_ACC) fault("%s: more than %d accumulator arrays in flight", what, WGMMA_MAX_ACC);
    WgmmaAcc* a = &s->acc[s->nacc++];
    a->d = d;
    a->n = n;
    memcpy(a->v, d, sizeof(float) * (size_t)(n / 2));
    for (int i = 0; i < n / 2; ++i) d[i] = by_nan_f();  // not readable before the wait
  }
  WgmmaOp& op = s->ops[s->nops++];
  op.d = d; op.n = n; op.ta = ta; op.tb = tb; op.kind = kind; op.scale_d = scale_d != 0; op.group = -1;
  op.da = da; op.db = db;
}

static void wgmma_commit(const char* what) {
  WgmmaState* s = wgmma_enter(what, 0);
  ++s->committed;
  for (int i = 0; i < s->nops; ++i)
    if (s->ops[i].group < 0) s->ops[i].group = s->committed;
}

// Retires every committed group but the `keep` newest, in issue order.
static void wgmma_wait(int keep, const char* what) {
  WgmmaState* s = wgmma_enter(what, (unsigned long long)keep);
  const int last = s->committed - keep;
  int kept = 0;
  for (int i = 0; i < s->nops; ++i) {
    WgmmaOp op = s->ops[i];
    if (op.group >= 0 && op.group <= last) wgmma_run(op, wgmma_acc(s, op.d)->v, what);
    else s->ops[kept++] = op;
  }
  s->nops = kept;
  // accumulators no pending operation writes become the registers' values again
  int left = 0;
  for (int a = 0; a < s->nacc; ++a) {
    bool busy = false;
    for (int i = 0; i < s->nops; ++i) busy |= s->ops[i].d == s->acc[a].d;
    if (busy) s->acc[left++] = s->acc[a];
    else memcpy(s->acc[a].d, s->acc[a].v, sizeof(float) * (size_t)(s->acc[a].n / 2));
  }
  s->nacc = left;
  s->fenced = false;  // stricter than PTX: the next wgmma after a wait needs a fence again
}

}  // namespace by_host

inline void by_mbar_init(void* bar, unsigned int count) {
  by_host::shared_offset("by_mbar_init", bar, 8, 8);
  if (count < 1 || count > 0xFFFF) by_host::fault("by_mbar_init: count %u is not 1..65535", count);
  by_host::mbar_store(bar, count, count, 0, 0);
}
inline void by_mbar_arrive_expect_tx(void* bar, unsigned int bytes) {
  by_host::mbar_update("by_mbar_arrive_expect_tx", bar, 1, (long long)bytes);
}
inline void by_mbar_wait(void* bar, unsigned int parity) {
  by_host::mbar_checked("by_mbar_wait", bar);
  if (by_host::mbar_phase_done((const unsigned char*)bar, parity)) return;
  by_host::Fiber* f = by_host::need_fiber("by_mbar_wait");
  f->state = by_host::AT_MBARRIER;
  f->mbar = (const unsigned char*)bar;
  f->mbar_parity = parity;
  by_host::suspend(f);  // the scheduler resumes it once the phase has completed
}
// ---- step counters (rammer's barrier variant; prelude_device.cuh says the protocol) ------------
// A waiting thread yields until the counter reaches its target; in a cooperative launch every
// block's threads are alive, so the producers run meanwhile. Waits no producer can end are the
// scheduler's deadlock, reported with the kernel and a waiting thread.
inline void by_step_wait(const unsigned int* counter, unsigned int blocks) {
  by_host::Fiber* f = by_host::need_fiber("by_step_wait");
  if (!(by_host::L.flags & by_host::COOPERATIVE))
    by_host::fault("by_step_wait in a kernel not launched cooperatively (Kernel.cooperative)");
  if (*counter < blocks) {
    f->state = by_host::AT_STEP;
    f->step = counter;
    f->step_target = blocks;
    by_host::suspend(f);
  }
  __syncthreads();
}
inline void by_step_signal(unsigned int* counter) {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) *counter += 1u;
}
inline void by_steps_reset(unsigned int* counters, int n, unsigned int blocks) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && ++counters[n] == blocks)
    for (int i = 0; i <= n; ++i) counters[i] = 0u;
}
// Arrival counters (prelude_device.cuh says the protocol): fibers switch only at barriers, so the
// count and the reset are atomic here.
inline bool by_arrive(unsigned int* counter, unsigned int parts) {
  const bool last = ++*counter == parts;
  if (last) *counter = 0u;
  return last;
}
// Every access is immediate on the host; the fence is counted for the async-proxy check.
inline void by_fence_proxy_async() {
  if (by_host::cur.fiber) ++by_host::cur.fiber->proxy_fences;
}
// An ordinary shared store, recorded for the async-proxy check (by_host::proxy_check_read).
template <typename T> inline void by_st_shared(T* p, const T& v) {
  const unsigned long long a = sizeof(T) >= 16 ? 16 : (sizeof(T) & (sizeof(T) - 1)) ? 1 : sizeof(T);
  const unsigned off = by_host::shared_offset("by_st_shared", p, sizeof(T), a);
  memcpy(p, &v, sizeof(T));
  by_host::proxy_mark(off, sizeof(T), (int)(by_host::cur.fiber ? by_host::cur.fiber - by_host::cur.fiber->block->fibers : 0));
}
inline void by_tma_load_2d(void* dst, const by_tensor_map* map, int c0, int c1, void* bar) {
  const int c[2] = {c0, c1};
  by_host::tma_load(dst, map, c, 2, bar, "by_tma_load_2d");
}
inline void by_tma_load_3d(void* dst, const by_tensor_map* map, int c0, int c1, int c2, void* bar) {
  const int c[3] = {c0, c1, c2};
  by_host::tma_load(dst, map, c, 3, bar, "by_tma_load_3d");
}
inline void by_tma_load_4d(void* dst, const by_tensor_map* map, int c0, int c1, int c2, int c3, void* bar) {
  const int c[4] = {c0, c1, c2, c3};
  by_host::tma_load(dst, map, c, 4, bar, "by_tma_load_4d");
}

inline void by_wgmma_fence() {
  by_host::WgmmaState* s = by_host::wgmma_enter("by_wgmma_fence", 0);
  s->fenced = true;
}
inline void by_wgmma_commit() { by_host::wgmma_commit("by_wgmma_commit"); }
template <int N> inline void by_wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  by_host::wgmma_wait(N, "by_wgmma_wait");
}
#define BY_HOST_WGMMA(NN, NAME, KIND)                                                                        \
  template <int TA, int TB>                                                                                  \
  inline void by_wgmma_m64n##NN##k16_##NAME(float* d, unsigned long long da, unsigned long long db, int scale_d) { \
    static_assert((TA == 0 || TA == 1) && (TB == 0 || TB == 1), "transpose flags are 0 or 1");               \
    by_host::wgmma_issue(d, NN, da, db, TA, TB, KIND, scale_d, "by_wgmma_m64n" #NN "k16_" #NAME);            \
  }
BY_HOST_WGMMA(64, f16, by_host::MMA_F16)
BY_HOST_WGMMA(128, f16, by_host::MMA_F16)
BY_HOST_WGMMA(256, f16, by_host::MMA_F16)
BY_HOST_WGMMA(64, bf16, by_host::MMA_BF16)
BY_HOST_WGMMA(128, bf16, by_host::MMA_BF16)
BY_HOST_WGMMA(256, bf16, by_host::MMA_BF16)
#undef BY_HOST_WGMMA

// ---- the driver program (AddressSanitizer runs) --------------------------------------------------
#if defined(BY_HOST_DRIVER)
struct by_host_entry {
  const char* name;
  int (*launch)(const unsigned*, const unsigned*, unsigned long long, int, unsigned long long,
                unsigned long long, void**);
};
extern "C" const by_host_entry by_host_entries[];
extern "C" const int by_host_entry_count;

// Usage: driver DIR. DIR/manifest.txt names the buffers (DIR/b<k>.bin, read in, each its own
// exact-size allocation; outputs written back) and the launches, in order.
int main(int argc, char** argv) {
  if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
  char path[4096];
  snprintf(path, sizeof path, "%s/manifest.txt", argv[1]);
  FILE* m = fopen(path, "r");
  if (!m) { fprintf(stderr, "cannot open %s\n", path); return 2; }
  int version = 0, nbuf = 0;
  if (fscanf(m, " brickyard-host-driver %d buffers %d", &version, &nbuf) != 2 || version != 1) {
    fprintf(stderr, "bad manifest\n"); return 2;
  }
  void** bufs = (void**)calloc((size_t)nbuf + 1, sizeof(void*));
  unsigned long long* sizes = (unsigned long long*)calloc((size_t)nbuf + 1, sizeof(unsigned long long));
  int* is_out = (int*)calloc((size_t)nbuf + 1, sizeof(int));
  for (int i = 0; i < nbuf; ++i) {
    char label[512];
    if (fscanf(m, " %llu %d %511s", &sizes[i], &is_out[i], label) != 3) { fprintf(stderr, "bad manifest\n"); return 2; }
    if (posix_memalign(&bufs[i], 16, (size_t)sizes[i]) != 0) { fprintf(stderr, "out of memory\n"); return 2; }
    snprintf(path, sizeof path, "%s/b%d.bin", argv[1], i);
    FILE* f = fopen(path, "rb");
    if (!f || fread(bufs[i], 1, (size_t)sizes[i], f) != (size_t)sizes[i]) { fprintf(stderr, "cannot read %s\n", path); return 2; }
    fclose(f);
    fprintf(stderr, "brickyard buffer %d [%p,%p) %s\n", i, bufs[i], (void*)((char*)bufs[i] + sizes[i]), label);
  }
  int nlaunch = 0;
  if (fscanf(m, " launches %d", &nlaunch) != 1) { fprintf(stderr, "bad manifest\n"); return 2; }
  for (int l = 0; l < nlaunch; ++l) {
    char name[512];
    unsigned grid[3], block[3];
    unsigned long long shared = 0, seed = 0, stack = 0;
    int flags = 0, nargs = 0;
    if (fscanf(m, " %511s %u %u %u %u %u %u %llu %d %llu %llu %d", name, &grid[0], &grid[1], &grid[2], &block[0],
               &block[1], &block[2], &shared, &flags, &seed, &stack, &nargs) != 12) {
      fprintf(stderr, "bad manifest\n"); return 2;
    }
    void** args = (void**)calloc((size_t)nargs + 1, sizeof(void*));
    for (int a = 0; a < nargs; ++a) {
      int id = 0;
      if (fscanf(m, " %d", &id) != 1 || id < 0 || id >= nbuf) { fprintf(stderr, "bad manifest\n"); return 2; }
      args[a] = bufs[id];
    }
    const by_host_entry* e = nullptr;
    for (int k = 0; k < by_host_entry_count; ++k)
      if (strcmp(by_host_entries[k].name, name) == 0) e = &by_host_entries[k];
    if (!e) { fprintf(stderr, "kernel %s is not in this driver\n", name); return 2; }
    if (e->launch(grid, block, shared, flags, seed, stack, args) != 0) {
      fprintf(stderr, "brickyard harness fault: %s\n", by_host::error_text);
      return 97;
    }
    free(args);
  }
  fclose(m);
  for (int i = 0; i < nbuf; ++i) {
    if (!is_out[i]) continue;
    snprintf(path, sizeof path, "%s/b%d.bin", argv[1], i);
    FILE* f = fopen(path, "wb");
    if (!f || fwrite(bufs[i], 1, (size_t)sizes[i], f) != (size_t)sizes[i]) { fprintf(stderr, "cannot write %s\n", path); return 2; }
    fclose(f);
    free(bufs[i]);
  }
  return 0;
}
#endif
