/*
 * ptxtile_rt.h - the runtime: load compiled kernels and launch them on a GPU
 * through the CUDA driver, which is opened at run time (no CUDA headers or
 * link-time dependency).  Written in src/rt/.
 */
#ifndef PTXTILE_RT_H
#define PTXTILE_RT_H
#endif
