/*
 * target.c - the compilation targets of targets.def.
 */
#include <string.h>

#include "base/base.h"

static const struct {
	const char *name;
	int sm;
	bool specific;
} targets[] = {
#define TARGET(id, name, sm, spec) [TGT_##id] = {name, sm, spec},
#include "base/targets.def"
#undef TARGET
};

const char *
target_name(Target t)
{
	return (unsigned)t < TGT_COUNT ? targets[t].name : "?";
}

bool
target_parse(const char *s, Target *out)
{
	for (int i = 0; i < TGT_COUNT; i++)
		if (strcmp(s, targets[i].name) == 0) {
			*out = (Target)i;
			return true;
		}
	return false;
}

int
target_sm(Target t)
{
	return targets[t].sm;
}

bool
target_is_specific(Target t)
{
	return targets[t].specific;
}
