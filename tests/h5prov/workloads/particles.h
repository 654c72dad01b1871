// particles.h — what the VPIC-IO-like writer (vpic_io.c) and the BD-CATS-IO-like reader
// (bdcats_io.c) share: the particle variables and their values, and the run's set-up for either
// HDF5 flavour. Built against Debian's openmpi HDF5 (H5_HAVE_PARALLEL), the file is accessed
// through MPI-IO by every rank of MPI_COMM_WORLD and data moves collectively; built against the
// serial HDF5, the program is one rank of one.
#pragma once

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef H5_HAVE_PARALLEL
#include <mpi.h>
#endif

// VPIC's eight particle properties, one 1-D float dataset each per time step, in /Step#k/.
#define PARTICLE_VARIABLES 8
static const char* const kParticleVariables[PARTICLE_VARIABLES] = {"x", "y", "z", "px", "py", "pz", "id1", "id2"};

// The value of variable `v` of particle `index` (over all ranks) at step `step`: exact in a float
// (below 2^24), so the reader can check every element it reads.
static inline float particle_value(int v, int step, hsize_t index) {
  return (float)((index + (hsize_t)v * 7 + (hsize_t)step * 13) % 65536);
}

struct particle_run {
  int rank, ranks;
  hid_t fapl;  // file access: MPI-IO in the parallel flavour
  hid_t dxpl;  // data transfer: collective in the parallel flavour
  struct timespec started;
};

static inline void particle_run_start(struct particle_run* run, int* argc, char*** argv) {
  run->rank = 0;
  run->ranks = 1;
  run->fapl = H5Pcreate(H5P_FILE_ACCESS);
  run->dxpl = H5Pcreate(H5P_DATASET_XFER);
#ifdef H5_HAVE_PARALLEL
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &run->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &run->ranks);
  H5Pset_fapl_mpio(run->fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  H5Pset_dxpl_mpio(run->dxpl, H5FD_MPIO_COLLECTIVE);
#else
  (void)argc;
  (void)argv;
#endif
  clock_gettime(CLOCK_MONOTONIC, &run->started);
}

// Ends the run: a line on rank 0 saying what was moved and how fast; the exit status (1 if any
// rank failed).
static inline int particle_run_end(struct particle_run* run, const char* program, const char* verb,
                                   hsize_t particles, int steps, int failed) {
  H5Pclose(run->dxpl);
  H5Pclose(run->fapl);
#ifdef H5_HAVE_PARALLEL
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  failed = any_failed;
  MPI_Barrier(MPI_COMM_WORLD);
#endif
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const double seconds = (double)(now.tv_sec - run->started.tv_sec) + (double)(now.tv_nsec - run->started.tv_nsec) / 1e9;
  if (run->rank == 0 && !failed) {
    const double mib = (double)particles * run->ranks * steps * PARTICLE_VARIABLES * sizeof(float) / (1 << 20);
    printf("%s: %d rank(s) %s %llu particles per rank, %d step(s), %.1f MiB in %.3f s\n", program, run->ranks, verb,
           (unsigned long long)particles, steps, mib, seconds);
  }
#ifdef H5_HAVE_PARALLEL
  MPI_Finalize();
#endif
  return failed ? 1 : 0;
}

// A positive integer option's value, or exits with the usage.
static inline long particle_option(const char* value, const char* usage) {
  char* end = NULL;
  const long n = strtol(value, &end, 10);
  if (*value == '\0' || *end != '\0' || n <= 0) {
    fputs(usage, stderr);
    exit(2);
  }
  return n;
}
