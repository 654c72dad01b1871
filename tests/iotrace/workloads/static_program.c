// static_program: linked statically, so LD_PRELOAD cannot reach it.
int main(void) { return 0; }
