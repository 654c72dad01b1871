// known_ops — HDF5 calls whose records the capture test knows exactly: a file, a group, a
// 6×8 int dataset in it, a 2×3 hyperslab written at (1, 2), an attribute of 4 doubles on the
// dataset, then everything read back after the file is opened again.
// Usage: known_ops FILE
#include <hdf5.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: known_ops FILE\n");
    return 2;
  }
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t group = H5Gcreate2(file, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[2] = {6, 8};
  hid_t space = H5Screate_simple(2, dims, NULL);
  hid_t dset = H5Dcreate2(group, "data", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  hsize_t start[2] = {1, 2}, count[2] = {2, 3};
  hid_t file_space = H5Dget_space(dset);
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t mem_space = H5Screate_simple(2, count, NULL);
  int block[6] = {1, 2, 3, 4, 5, 6};
  herr_t written = H5Dwrite(dset, H5T_NATIVE_INT, mem_space, file_space, H5P_DEFAULT, block);

  hsize_t attr_dims[1] = {4};
  hid_t attr_space = H5Screate_simple(1, attr_dims, NULL);
  hid_t attr = H5Acreate2(dset, "scale", H5T_IEEE_F64LE, attr_space, H5P_DEFAULT, H5P_DEFAULT);
  double scale[4] = {0.5, 1.5, 2.5, 3.5};
  H5Awrite(attr, H5T_NATIVE_DOUBLE, scale);
  H5Aclose(attr);
  H5Sclose(attr_space);
  H5Sclose(mem_space);
  H5Sclose(file_space);
  H5Sclose(space);
  H5Dclose(dset);
  H5Gclose(group);
  H5Fclose(file);

  file = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  dset = H5Dopen2(file, "/grp/data", H5P_DEFAULT);
  int all[48];
  herr_t read = H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all);
  attr = H5Aopen(dset, "scale", H5P_DEFAULT);
  double back[4];
  H5Aread(attr, H5T_NATIVE_DOUBLE, back);
  H5Aclose(attr);
  H5Dclose(dset);
  H5Fclose(file);
  if (written < 0 || read < 0 || all[1 * 8 + 2] != 1 || all[2 * 8 + 4] != 6 || back[3] != 3.5) {
    fprintf(stderr, "known_ops: the data read back is not what was written\n");
    return 1;
  }
  return 0;
}
