// no_io: a program that does no I/O at all.
int main(void) { return 0; }
