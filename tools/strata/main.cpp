// main.cpp: the `strata` command line.
#include <cstdio>

int main(int argc, char** argv) {
    std::puts("strata " STRATA_VERSION);
    return 0;
}
