/* ptxtile_run.h - the `ptxtile run` subcommand (tools/ptxtile_run.c). */
#ifndef PTXTILE_RUN_H
#define PTXTILE_RUN_H
/* argv[1] is "run"; returns the exit status. */
int ptxtile_run_main(int argc, char **argv);
#endif
