// open_close_cycles — a dataset opened with H5Oopen and released with H5Idec_ref N times, as
// h5py does it, then the file closed. Usage: open_close_cycles FILE N
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: open_close_cycles FILE N\n");
    return 2;
  }
  const long n = strtol(argv[2], NULL, 10);
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[1] = {16};
  hid_t space = H5Screate_simple(1, dims, NULL);
  H5Dclose(H5Dcreate2(file, "d", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Sclose(space);
  for (long i = 0; i < n; ++i) {
    hid_t d = H5Oopen(file, "d", H5P_DEFAULT);
    if (d < 0 || H5Idec_ref(d) != 0) {
      fprintf(stderr, "open_close_cycles: cycle %ld failed\n", i);
      return 1;
    }
  }
  return H5Fclose(file) < 0 ? 1 : 0;
}
