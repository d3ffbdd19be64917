/* ptxtile_run.h - the `ptxtile run` subcommand (tools/ptxtile_run.c). */
#ifndef PTXTILE_RUN_H
#define PTXTILE_RUN_H
/* argv[1] is "run"; returns the exit status. */
int ptxtile_run_main(int argc, char **argv);
/* tools/ptxtile.c: the value of option opt at argv[*i], given as
 * "--opt V" (advances *i; "" when V is missing) or "--opt=V"; NULL when
 * argv[*i] is another option. */
const char *cli_option_value(int argc, char **argv, int *i,
			     const char *opt);
#endif
