/*
 * main.c -- the modes of abi/golden (golden.h): the suite, `write DIR`
 * and `check DIR`. Each ends with the `N passed, M failed` line.
 */
#define TEST_MAIN
#include "golden.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "write") == 0) {
    write_all(argv[2]);
  } else if (argc == 3 && strcmp(argv[1], "check") == 0) {
    source_s source = {argv[2]};
    check_all(&source);
  } else if (argc == 1) {
    source_s embedded = {NULL};
    check_format_helpers();
    check_all(&embedded);
  } else {
    fprintf(stderr, "usage: %s [write DIR | check DIR]\n", argv[0]);
    return 2;
  }
  return TEST_SUMMARY();
}
