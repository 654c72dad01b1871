// moved_link — objects open under a link that moves: HDF5 renames them, and so must the trace.
// Creates /grp, /grp/closed (closed at once) and /grp/ds, keeps /grp and /grp/ds open, moves
// /grp to /moved, writes /moved/ds (through the id opened as /grp/ds), prints HDF5's name for it,
// closes.
// Usage: moved_link FILE
#include <hdf5.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: moved_link FILE\n");
    return 2;
  }
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t group = H5Gcreate2(file, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[1] = {4};
  hid_t space = H5Screate_simple(1, dims, NULL);
  H5Dclose(H5Dcreate2(group, "closed", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  hid_t dset = H5Dcreate2(group, "ds", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t moved = H5Lmove(file, "grp", file, "moved", H5P_DEFAULT, H5P_DEFAULT);
  int data[4] = {1, 2, 3, 4};
  herr_t written = H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  char name[64];
  H5Iget_name(dset, name, sizeof(name));
  printf("%s\n", name);
  H5Dclose(dset);
  H5Sclose(space);
  H5Gclose(group);
  H5Fclose(file);
  return moved < 0 || written < 0 ? 1 : 0;
}
