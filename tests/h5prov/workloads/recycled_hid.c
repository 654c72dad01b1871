// recycled_hid — the same hid_t value for two datasets. HDF5 1.10 numbers ids upwards, but
// H5close() frees every id without a call per object and the numbering starts over: "a",
// opened first, and "b", opened first after H5close(), get the same value. Prints both.
// Usage: recycled_hid FILE
#include <hdf5.h>
#include <stdio.h>

static hid_t OpenFirst(const char* path, const char* name, hid_t* file) {
  *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  return H5Dopen2(*file, name, H5P_DEFAULT);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: recycled_hid FILE\n");
    return 2;
  }
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t a_dims[1] = {4}, b_dims[1] = {8};
  hid_t a_space = H5Screate_simple(1, a_dims, NULL), b_space = H5Screate_simple(1, b_dims, NULL);
  H5Dclose(H5Dcreate2(file, "a", H5T_STD_I32LE, a_space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Dclose(H5Dcreate2(file, "b", H5T_STD_I32LE, b_space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Sclose(a_space);
  H5Sclose(b_space);
  H5Fclose(file);
  H5close();

  hid_t a = OpenFirst(argv[1], "a", &file);
  H5close();  // "a" and its file are freed without H5Dclose or H5Fclose
  hid_t b = OpenFirst(argv[1], "b", &file);
  int data[8];
  herr_t read = H5Dread(b, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  printf("a=%lld b=%lld\n", (long long)a, (long long)b);
  H5Dclose(b);
  H5Fclose(file);
  return read < 0 ? 1 : 0;
}
