// SPDX-License-Identifier: GPL-2.0
/* pre_doit takes the split op (const struct genl_split_ops *) */
#include <net/genetlink.h>

static int pcierr_probe_pre(const struct genl_split_ops *ops,
			    struct sk_buff *skb, struct genl_info *info)
{
	return 0;
}

struct genl_family pcierr_probe_family = {
	.pre_doit = pcierr_probe_pre,
};
