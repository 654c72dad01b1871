// bdcats_io — a BD-CATS-IO-like reader of what vpic_io wrote: the file opened read-only by all
// ranks, then for every time step /Step#k each of the eight particle datasets read back, every
// rank its own contiguous share (extent / ranks elements, the last rank the rest), and every
// element checked against what vpic_io wrote. Built twice from this source: bdcats_io (serial
// HDF5) and bdcats_io_mpi (openmpi HDF5: MPI-IO, collective transfers; run under mpirun).
// Usage: bdcats_io [-t STEPS] FILE   (default: every /Step#k in the file)
#include <unistd.h>

#include "particles.h"

static const char kUsage[] = "usage: bdcats_io [-t STEPS] FILE\n";

// Reads dataset `v` of `group` (step `step`) into `data`, this rank's share; checks it. Sets
// *particles to the share's size; returns 0, or 1 if reading failed or the data is not right.
static int read_variable(const struct particle_run* run, hid_t group, int v, int step, float** data,
                         hsize_t* particles) {
  hid_t dset = H5Dopen2(group, kParticleVariables[v], H5P_DEFAULT);
  hid_t file_space = H5Dget_space(dset);
  hsize_t total = 0;
  int failed = dset < 0 || H5Sget_simple_extent_dims(file_space, &total, NULL) != 1;
  const hsize_t share = total / (hsize_t)run->ranks, first = share * (hsize_t)run->rank;
  const hsize_t count = run->rank == run->ranks - 1 ? total - first : share;
  if (!failed && count > *particles) {
    free(*data);
    *data = malloc(count * sizeof(float));
    failed = *data == NULL;
  }
  *particles = count;
  if (!failed && count > 0) {
    hid_t mem_space = H5Screate_simple(1, &count, NULL);
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &first, NULL, &count, NULL);
    failed = H5Dread(dset, H5T_NATIVE_FLOAT, mem_space, file_space, run->dxpl, *data) < 0;
    for (hsize_t i = 0; i < count && !failed; ++i) failed = (*data)[i] != particle_value(v, step, first + i);
    H5Sclose(mem_space);
  }
  H5Sclose(file_space);
  H5Dclose(dset);
  return failed;
}

int main(int argc, char** argv) {
  int steps = 0;
  for (int opt; (opt = getopt(argc, argv, "t:")) != -1;) {
    if (opt == 't') steps = (int)particle_option(optarg, kUsage);
    else return fputs(kUsage, stderr), 2;
  }
  if (optind + 1 != argc) return fputs(kUsage, stderr), 2;
  const char* path = argv[optind];

  struct particle_run run;
  particle_run_start(&run, &argc, &argv);
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, run.fapl);
  H5G_info_t info;
  int failed = file < 0 || H5Gget_info(file, &info) < 0;
  if (!failed && steps == 0) steps = (int)info.nlinks;  // every /Step#k
  float* data = NULL;
  hsize_t particles = 0;
  for (int step = 0; step < steps && !failed; ++step) {
    char name[32];
    snprintf(name, sizeof name, "Step#%d", step);
    hid_t group = H5Gopen2(file, name, H5P_DEFAULT);
    failed = group < 0;
    for (int v = 0; v < PARTICLE_VARIABLES && !failed; ++v) failed = read_variable(&run, group, v, step, &data, &particles);
    H5Gclose(group);
  }
  failed |= H5Fclose(file) < 0;
  free(data);
  if (failed) fprintf(stderr, "bdcats_io: %s does not hold what vpic_io writes\n", path);
  return particle_run_end(&run, "bdcats_io", "read", particles, steps, failed);
}
