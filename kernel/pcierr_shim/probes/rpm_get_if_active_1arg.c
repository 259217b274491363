// SPDX-License-Identifier: GPL-2.0
/* pm_runtime_get_if_active() with one argument (the old form took a bool) */
#include <linux/pm_runtime.h>

int pcierr_probe(struct device *dev);
int pcierr_probe(struct device *dev)
{
	return pm_runtime_get_if_active(dev);
}
