// stdio_workload FILE: writes FILE through stdio, then reads it back.
//   fopen "w"; 10 fwrite of 100 bytes (0..999); fprintf "12345\n" (1000); fputs "hello\n"
//   (1006); putc 'x' 'x' 'x' '\n' (1012..1015); fclose: 1016 bytes.
//   fopen "r"; fseek to 500; 5 fread of 100 bytes (500..999); fscanf "%d " reads "12345\n"
//   (1000, 6 bytes); fgets of 64 reads "hello\n" (1006); getc x4 (1012..1015), getc at the
//   end (1016, EOF); fclose.
#include <stdio.h>

#include "workload.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  char block[100];
  memset(block, 's', sizeof(block));
  FILE* out = fopen(argv[1], "w");
  CHECK(out != NULL);
  for (int i = 0; i < 10; ++i) CHECK(fwrite(block, 1, sizeof(block), out) == sizeof(block));
  CHECK(fprintf(out, "%d\n", 12345) == 6);
  CHECK(fputs("hello\n", out) >= 0);
  CHECK(putc('x', out) == 'x');
  CHECK(putc('x', out) == 'x');
  CHECK(putc('x', out) == 'x');
  CHECK(putc('\n', out) == '\n');
  CHECK(fclose(out) == 0);

  FILE* in = fopen(argv[1], "r");
  CHECK(in != NULL);
  CHECK(fseek(in, 500, SEEK_SET) == 0);
  for (int i = 0; i < 5; ++i) CHECK(fread(block, 1, sizeof(block), in) == sizeof(block));
  int value = 0;
  CHECK(fscanf(in, "%d ", &value) == 1 && value == 12345);
  char line[64];
  CHECK(fgets(line, sizeof(line), in) != NULL && strcmp(line, "hello\n") == 0);
  CHECK(getc(in) == 'x');
  CHECK(getc(in) == 'x');
  CHECK(getc(in) == 'x');
  CHECK(getc(in) == '\n');
  CHECK(getc(in) == EOF);
  CHECK(fclose(in) == 0);
  return 0;
}
