// vpic_io — a VPIC-IO-like writer: every time step k, a group /Step#k holding VPIC's eight
// particle properties (x, y, z, px, py, pz, id1, id2), each a 1-D float dataset of
// PARTICLES × ranks elements into which every rank writes its own contiguous hyperslab (start
// rank × PARTICLES); one file for all ranks. Built twice from this source: vpic_io (serial
// HDF5) and vpic_io_mpi (openmpi HDF5: MPI-IO, collective transfers; run under mpirun).
// Usage: vpic_io [-n PARTICLES] [-t STEPS] FILE   (defaults: 1048576 particles per rank, 1 step)
#include <unistd.h>

#include "particles.h"

static const char kUsage[] = "usage: vpic_io [-n PARTICLES_PER_RANK] [-t STEPS] FILE\n";

int main(int argc, char** argv) {
  hsize_t particles = 1 << 20;
  int steps = 1;
  for (int opt; (opt = getopt(argc, argv, "n:t:")) != -1;) {
    if (opt == 'n') particles = (hsize_t)particle_option(optarg, kUsage);
    else if (opt == 't') steps = (int)particle_option(optarg, kUsage);
    else return fputs(kUsage, stderr), 2;
  }
  if (optind + 1 != argc) return fputs(kUsage, stderr), 2;
  const char* path = argv[optind];

  struct particle_run run;
  particle_run_start(&run, &argc, &argv);
  float* data = malloc(particles * sizeof(float));
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);  // every element is written: no fill pass first
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, run.fapl);
  int failed = data == NULL || file < 0;
  const hsize_t total = particles * (hsize_t)run.ranks, first = particles * (hsize_t)run.rank;
  hid_t file_space = H5Screate_simple(1, &total, NULL);
  hid_t mem_space = H5Screate_simple(1, &particles, NULL);
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &first, NULL, &particles, NULL);
  for (int step = 0; step < steps && !failed; ++step) {
    char name[32];
    snprintf(name, sizeof name, "Step#%d", step);
    hid_t group = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    failed |= group < 0;
    for (int v = 0; v < PARTICLE_VARIABLES && !failed; ++v) {
      for (hsize_t i = 0; i < particles; ++i) data[i] = particle_value(v, step, first + i);
      hid_t dset = H5Dcreate2(group, kParticleVariables[v], H5T_NATIVE_FLOAT, file_space, H5P_DEFAULT, dcpl,
                              H5P_DEFAULT);
      failed |= dset < 0 || H5Dwrite(dset, H5T_NATIVE_FLOAT, mem_space, file_space, run.dxpl, data) < 0;
      H5Dclose(dset);
    }
    H5Gclose(group);
  }
  H5Sclose(mem_space);
  H5Sclose(file_space);
  failed |= H5Fclose(file) < 0;
  H5Pclose(dcpl);
  free(data);
  if (failed) fprintf(stderr, "vpic_io: writing %s failed\n", path);
  return particle_run_end(&run, "vpic_io", "wrote", particles, steps, failed);
}
