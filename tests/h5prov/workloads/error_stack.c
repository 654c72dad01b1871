// error_stack — failing HDF5 calls and what the program then finds on its error stack: a
// H5Dopen2 of a dataset that does not exist (HDF5 prints its HDF5-DIAG lines, as by default)
// and a H5Dwrite on an id that is no dataset. Prints each call's result and the error
// stack's depth and functions after it, for comparison with and without capture.
// Usage: error_stack FILE
#include <hdf5.h>
#include <stdio.h>

static herr_t PrintRecord(unsigned n, const H5E_error2_t* e, void* data) {
  (void)data;
  printf("  %u %s\n", n, e->func_name);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: error_stack FILE\n");
    return 2;
  }
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t missing = H5Dopen2(file, "missing", H5P_DEFAULT);
  printf("H5Dopen2=%lld errors=%zd\n", (long long)missing, H5Eget_num(H5E_DEFAULT));
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, PrintRecord, NULL);
  int data[4] = {0};
  herr_t written = H5Dwrite((hid_t)12345, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  printf("H5Dwrite=%d errors=%zd\n", written, H5Eget_num(H5E_DEFAULT));
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, PrintRecord, NULL);
  H5Fclose(file);
  return 0;
}
