// mpi_rows — parallel HDF5 (Debian's openmpi flavour): the ranks create one file through
// MPI-IO, each writes its row of a ranks×4 int dataset collectively, then rank 0 reads the
// whole dataset independently. Usage (under mpirun): mpi_rows FILE
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 2) {
    fprintf(stderr, "usage: mpi_rows FILE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  hsize_t dims[2] = {(hsize_t)size, 4};
  hid_t space = H5Screate_simple(2, dims, NULL);
  hid_t dset = H5Dcreate2(file, "rows", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t start[2] = {(hsize_t)rank, 0}, count[2] = {1, 4};
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t row = H5Screate_simple(2, count, NULL);
  hid_t collective = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(collective, H5FD_MPIO_COLLECTIVE);
  int values[4] = {rank, rank, rank, rank};
  herr_t written = H5Dwrite(dset, H5T_NATIVE_INT, row, space, collective, values);
  int all[64];
  herr_t read = 0;
  if (rank == 0 && size <= 16) read = H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all);
  H5Pclose(collective);
  H5Sclose(row);
  H5Sclose(space);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
  MPI_Finalize();
  return written < 0 || read < 0 ? 1 : 0;
}
