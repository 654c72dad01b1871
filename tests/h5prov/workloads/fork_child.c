// fork_child — a parent that writes one HDF5 file and a forked child that writes another and
// ends with _exit (no exit handlers). Usage: fork_child PARENT_FILE CHILD_FILE
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

static int WriteOne(const char* path, int value) {
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[1] = {1};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dset = H5Dcreate2(file, "v", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t written = H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value);
  H5Dclose(dset);
  H5Sclose(space);
  H5Fclose(file);
  return written < 0 ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  if (WriteOne(argv[1], 1) != 0) return 1;
  pid_t child = fork();
  if (child == 0) _exit(WriteOne(argv[2], 2));
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  return 0;
}
