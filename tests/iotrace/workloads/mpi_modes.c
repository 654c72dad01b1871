// mpi_modes MODE PATH: each of the job's ranks writes, then reads back, 4 blocks of 1 MiB with
// MPI-IO (MPI_File_write_at, MPI_File_read_at), in one of Beacon's I/O modes:
//   nn  PATH is a directory: rank r uses its own file PATH/rank<r>
//   n1  PATH is one file shared by every rank, rank r's segment at r × 4 MiB (IOR's segments)
//   nm  PATH is a directory: ranks 2k and 2k+1 share the file PATH/group<k>, each its half
//   11  PATH is one file: rank 0 alone writes and reads it; the others do no I/O
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "workload.h"

enum { kBlock = 1 << 20, kBlocks = 4 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 3);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argv[1];
  char path[4096];
  MPI_Comm comm = MPI_COMM_SELF;
  MPI_Offset base = 0;
  int active = 1;
  if (strcmp(mode, "nn") == 0) {
    snprintf(path, sizeof(path), "%s/rank%d", argv[2], rank);
  } else if (strcmp(mode, "n1") == 0) {
    snprintf(path, sizeof(path), "%s", argv[2]);
    comm = MPI_COMM_WORLD;
    base = (MPI_Offset)rank * kBlocks * kBlock;
  } else if (strcmp(mode, "nm") == 0) {
    snprintf(path, sizeof(path), "%s/group%d", argv[2], rank / 2);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &comm);
    base = (MPI_Offset)(rank % 2) * kBlocks * kBlock;
  } else {
    CHECK(strcmp(mode, "11") == 0);
    snprintf(path, sizeof(path), "%s", argv[2]);
    active = rank == 0;
  }
  static char block[kBlock];
  memset(block, 'a' + rank, sizeof(block));
  if (active) {
    MPI_File fh;
    CHECK(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    for (int i = 0; i < kBlocks; ++i) {
      CHECK(MPI_File_write_at(fh, base + (MPI_Offset)i * kBlock, block, kBlock, MPI_BYTE, MPI_STATUS_IGNORE) ==
            MPI_SUCCESS);
    }
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
    for (int i = 0; i < kBlocks; ++i) {
      MPI_Status status;
      CHECK(MPI_File_read_at(fh, base + (MPI_Offset)i * kBlock, block, kBlock, MPI_BYTE, &status) == MPI_SUCCESS);
      CHECK(block[0] == 'a' + rank && block[kBlock - 1] == 'a' + rank);
    }
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
