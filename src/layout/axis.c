/*
 * axis.c - names and kinds of the layout axes in axes.def.
 */
#include <string.h>

#include "layout/layout.h"

static const struct {
	const char *name;
	AxisKind kind;
} axes[] = {
#define AXIS(id, name, kind) [AX_##id] = {name, AXK_##kind},
#include "layout/axes.def"
#undef AXIS
};

const char *
axis_name(Axis a)
{
	return (unsigned)a < AX_COUNT ? axes[a].name : "?";
}

AxisKind
axis_kind(Axis a)
{
	return axes[a].kind;
}

bool
axis_parse(const char *s, Axis *out)
{
	for (int i = 0; i < AX_COUNT; i++)
		if (strcmp(s, axes[i].name) == 0) {
			*out = (Axis)i;
			return true;
		}
	return false;
}
