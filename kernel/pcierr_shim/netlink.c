// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr generic netlink family: see uapi/linux/pcierr.h for the contract.
 * parallel_ops: every handler does its own locking (pcierr_topo_lock for
 * the topology, pe->lock for PE state); recovery work is queued on the
 * PE's work queue and never runs under a netlink lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rwsem.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "internal.h"

#define PCIERR_WATCH_MIN_MS	10
#define PCIERR_WATCH_MAX_MS	3600000

static DECLARE_RWSEM(pcierr_nl_sem);
static bool pcierr_nl_up;		/* pcierr_nl_sem */

static const struct nla_policy pcierr_policy[PCIERR_A_MAX + 1] = {
	[PCIERR_A_PE] = { .type = NLA_NUL_STRING, .len = PCIERR_ADDR_MAX - 1 },
	[PCIERR_A_DEVICE] = { .type = NLA_NUL_STRING,
			      .len = PCIERR_ADDR_MAX - 1 },
	/* enums: range-checked by hand, EINVAL (the policy would say ERANGE) */
	[PCIERR_A_STATE] = { .type = NLA_U32 },
	[PCIERR_A_TIME_UNAVAIL_MS] = { .type = NLA_U32 },
	[PCIERR_A_STEP] = { .type = NLA_U32 },
	[PCIERR_A_RESET_TYPE] = { .type = NLA_U32 },
	[PCIERR_A_WATCH_INTERVAL_MS] = { .type = NLA_U32 },
};

static struct genl_family pcierr_family;

static int pcierr_hex(const char **p, unsigned int min, unsigned int max,
		      unsigned int *val)
{
	unsigned int n = 0;
	int d;

	*val = 0;
	while ((d = hex_to_bin(**p)) >= 0 && n < max) {
		*val = *val << 4 | d;
		(*p)++;
		n++;
	}
	return n >= min ? 0 : -EINVAL;
}

/* "DDDD:BB:DD.F": a domain of 4 to 8 hex digits, device <= 0x1f. */
static bool pcierr_addr_valid(const char *s)
{
	unsigned int v;

	if (pcierr_hex(&s, 4, 8, &v) || *s++ != ':' ||
	    pcierr_hex(&s, 2, 2, &v) || *s++ != ':' ||
	    pcierr_hex(&s, 2, 2, &v) || v > 0x1f || *s++ != '.' ||
	    *s < '0' || *s > '7')
		return false;
	return s[1] == '\0';
}

/* The address in attribute @type: NULL (and -EINVAL in @err) if bad. */
static const char *pcierr_nl_addr(struct genl_info *info, int type, int *err)
{
	struct nlattr *attr = info->attrs[type];

	if (!attr) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, type);
		NL_SET_ERR_MSG(info->extack, "missing address attribute");
		*err = -EINVAL;
		return NULL;
	}
	if (!pcierr_addr_valid(nla_data(attr))) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "malformed address: expected DDDD:BB:DD.F");
		*err = -EINVAL;
		return NULL;
	}
	return nla_data(attr);
}

/* An optional enum attribute in [@min, @max]; EINVAL otherwise. */
static int pcierr_nl_enum(struct genl_info *info, int type, u32 min, u32 max,
			  u32 *val)
{
	struct nlattr *attr = info->attrs[type];

	if (!attr)
		return 0;
	*val = nla_get_u32(attr);
	if (*val < min || *val > max) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "value out of range");
		return -EINVAL;
	}
	return 0;
}

static void pcierr_nl_multicast(struct sk_buff *msg)
{
	down_read(&pcierr_nl_sem);
	if (pcierr_nl_up)
		genlmsg_multicast(&pcierr_family, msg, 0, 0, GFP_KERNEL);
	else
		nlmsg_free(msg);
	up_read(&pcierr_nl_sem);
}

static int pcierr_fill_dev(struct sk_buff *skb, struct pcierr_dev *dev)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, PCIERR_A_PE_DEVICES_ENTRY);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, PCIERR_DEV_A_ADDR, dev->name) ||
	    nla_put_u16(skb, PCIERR_DEV_A_VENDOR, dev->vendor) ||
	    nla_put_u16(skb, PCIERR_DEV_A_DEVICE, dev->device) ||
	    nla_put_u16(skb, PCIERR_DEV_A_SUBVENDOR, dev->subvendor) ||
	    nla_put_u16(skb, PCIERR_DEV_A_SUBDEVICE, dev->subdevice) ||
	    nla_put_u32(skb, PCIERR_DEV_A_CLASS, dev->class) ||
	    (dev->dsn && nla_put_u64_64bit(skb, PCIERR_DEV_A_DSN, dev->dsn,
					   PCIERR_DEV_A_PAD)) ||
	    (dev->driver && nla_put_string(skb, PCIERR_DEV_A_DRIVER,
					   dev->driver)) ||
	    nla_put_u32(skb, PCIERR_DEV_A_HANDLERS,
			pcierr_dev_handlers(dev)) ||
	    nla_put_u32(skb, PCIERR_DEV_A_STATE,
			pcierr_channel_state(READ_ONCE(dev->pdev->error_state))) ||
	    nla_put_u32(skb, PCIERR_DEV_A_ERROR_GEN,
			atomic_read(&dev->error_gen)) ||
	    nla_put_u32(skb, PCIERR_DEV_A_FLAGS,
			dev->bridge ? PCIERR_DEV_F_BRIDGE : 0)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Caller holds pcierr_topo_lock. */
static int pcierr_fill_pe(struct sk_buff *skb, struct pcierr_pe *pe,
			  u32 portid, u32 seq, int flags,
			  struct netlink_callback *cb)
{
	struct pcierr_dev *dev;
	enum pcierr_pe_state state;
	struct nlattr *nest;
	unsigned long lflags;
	unsigned int watch;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &pcierr_family, flags,
			  PCIERR_CMD_GET_PE);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	spin_lock_irqsave(&pe->lock, lflags);
	state = pe->state;
	watch = pe->watch_ms;
	spin_unlock_irqrestore(&pe->lock, lflags);

	if (nla_put_string(skb, PCIERR_A_PE, pe->name) ||
	    nla_put_u32(skb, PCIERR_A_PE_STATE, state) ||
	    nla_put_u32(skb, PCIERR_A_PE_FLAGS, pcierr_pe_flags(pe)) ||
	    nla_put_u32(skb, PCIERR_A_RESET_TYPES,
			pcierr_pe_reset_types(pe)) ||
	    nla_put_u32(skb, PCIERR_A_GENERATION, pcierr_topo_gen()) ||
	    nla_put_u32(skb, PCIERR_A_WATCH_INTERVAL_MS, watch))
		goto cancel;

	nest = nla_nest_start(skb, PCIERR_A_PE_DEVICES);
	if (!nest)
		goto cancel;
	list_for_each_entry(dev, &pe->devs, pe_node)
		if (pcierr_fill_dev(skb, dev))
			goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int pcierr_nl_get_pe(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *pe_attr = info->attrs[PCIERR_A_PE];
	struct nlattr *dev_attr = info->attrs[PCIERR_A_DEVICE];
	size_t size = NLMSG_GOODSIZE;
	struct pcierr_dev *dev;
	struct pcierr_pe *pe;
	struct sk_buff *msg;
	int ret;

	if (!pe_attr == !dev_attr) {
		GENL_SET_ERR_MSG(info, "give either PCIERR_A_PE or PCIERR_A_DEVICE");
		return -EINVAL;
	}
	if (pe_attr) {
		if (!pcierr_nl_addr(info, PCIERR_A_PE, &ret))
			return ret;
		pe = pcierr_pe_lookup(nla_data(pe_attr));
		if (!pe) {
			NL_SET_ERR_MSG_ATTR(info->extack, pe_attr, "no such PE");
			return -ENODEV;
		}
	} else {
		if (!pcierr_nl_addr(info, PCIERR_A_DEVICE, &ret))
			return ret;
		dev = pcierr_dev_lookup(nla_data(dev_attr));
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(info->extack, dev_attr,
					    "no such device");
			return -ENODEV;
		}
		pe = dev->pe;
		pcierr_pe_get(pe);
		pcierr_dev_put(dev);
	}

	for (;;) {
		msg = genlmsg_new(size, GFP_KERNEL);
		if (!msg) {
			ret = -ENOMEM;
			break;
		}
		mutex_lock(&pcierr_topo_lock);
		ret = pcierr_fill_pe(msg, pe, info->snd_portid, info->snd_seq,
				     0, NULL);
		mutex_unlock(&pcierr_topo_lock);
		if (!ret) {
			ret = genlmsg_reply(msg, info);
			break;
		}
		nlmsg_free(msg);
		if (size >= 16 * NLMSG_GOODSIZE)
			break;
		size *= 4;
	}
	pcierr_pe_put(pe);
	return ret;
}

static int pcierr_nl_dump_pe(struct sk_buff *skb, struct netlink_callback *cb)
{
	long idx = 0, start = cb->args[0];
	struct pcierr_pe *pe;

	mutex_lock(&pcierr_topo_lock);
	cb->seq = pcierr_topo_gen();
	list_for_each_entry(pe, &pcierr_pes, node) {
		if (idx < start) {
			idx++;
			continue;
		}
		if (pcierr_fill_pe(skb, pe, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI, cb))
			break;
		idx++;
	}
	mutex_unlock(&pcierr_topo_lock);
	cb->args[0] = idx;
	return skb->len;
}

static int pcierr_nl_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;
	int i;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &pcierr_family, 0,
				PCIERR_CMD_GET_STATS);
	if (!hdr)
		goto nospace;
	nest = nla_nest_start(msg, PCIERR_A_STATS);
	if (!nest)
		goto nospace;
	for (i = PCIERR_STAT_UNSPEC + 1; i < __PCIERR_STAT_MAX; i++) {
		if (i == PCIERR_STAT_PAD)
			continue;
		if (nla_put_u64_64bit(msg, i, atomic64_read(&pcierr_stats[i]),
				      PCIERR_STAT_PAD))
			goto nospace;
	}
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int pcierr_nl_inject(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *dev_attr = info->attrs[PCIERR_A_DEVICE];
	u32 state = PCIERR_STATE_FROZEN, ms = 0;
	struct pcierr_dev *dev;
	struct sk_buff *msg;
	void *hdr;
	u64 seq;
	int ret;

	if (!pcierr_nl_addr(info, PCIERR_A_DEVICE, &ret))
		return ret;
	ret = pcierr_nl_enum(info, PCIERR_A_STATE, PCIERR_STATE_FROZEN,
			     PCIERR_STATE_PERM_FAILURE, &state);
	if (ret)
		return ret;
	if (info->attrs[PCIERR_A_TIME_UNAVAIL_MS])
		ms = nla_get_u32(info->attrs[PCIERR_A_TIME_UNAVAIL_MS]);

	dev = pcierr_dev_lookup(nla_data(dev_attr));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, dev_attr, "no such device");
		return -ENODEV;
	}
	if (dev->bridge) {
		NL_SET_ERR_MSG_ATTR(info->extack, dev_attr,
				    "cannot inject on a bridge: name a device below it");
		ret = -EINVAL;
		goto out;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = pcierr_detect(dev, pcierr_pci_state(state), ms,
			    PCIERR_SOURCE_INJECT, &seq);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	/* The PE is cut off when the reply arrives. */
	pcierr_pe_apply_freeze(dev->pe);

	hdr = genlmsg_put_reply(msg, info, &pcierr_family, 0,
				PCIERR_CMD_INJECT);
	if (!hdr ||
	    nla_put_u64_64bit(msg, PCIERR_A_SEQ, seq, PCIERR_A_PAD)) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out:
	pcierr_dev_put(dev);
	return ret;
}

/* Queue @op on the PE named by PCIERR_A_PE; reply with its id. */
static int pcierr_nl_submit(struct genl_info *info, struct pcierr_op *op,
			    int (*check)(struct pcierr_pe *pe,
					 struct pcierr_op *op,
					 struct genl_info *info))
{
	struct nlattr *pe_attr = info->attrs[PCIERR_A_PE];
	struct pcierr_pe *pe = NULL;
	struct sk_buff *msg = NULL;
	void *hdr;
	u64 id;
	int ret;

	if (!pcierr_nl_addr(info, PCIERR_A_PE, &ret))
		goto err;
	pe = pcierr_pe_lookup(nla_data(pe_attr));
	if (!pe) {
		NL_SET_ERR_MSG_ATTR(info->extack, pe_attr, "no such PE");
		ret = -ENODEV;
		goto err;
	}
	if (check) {
		ret = check(pe, op, info);
		if (ret)
			goto err;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto err;
	}
	hdr = genlmsg_put_reply(msg, info, &pcierr_family, 0, op->cmd);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err;
	}

	ret = pcierr_op_submit(pe, op, &id);
	if (ret) {
		if (ret == -EBUSY)
			NL_SET_ERR_MSG_ATTR(info->extack, pe_attr,
					    "an operation is in flight on this PE");
		else
			NL_SET_ERR_MSG_ATTR(info->extack, pe_attr,
					    "the PE is gone");
		goto err;
	}
	op = NULL;			/* the work owns it now */
	pcierr_pe_put(pe);

	if (nla_put_u64_64bit(msg, PCIERR_A_OP_ID, id, PCIERR_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	nlmsg_free(msg);
	pcierr_pe_put(pe);
	if (op)
		pcierr_dev_put(op->dev);
	kfree(op);
	return ret;
}

static struct pcierr_op *pcierr_op_new(u8 cmd)
{
	struct pcierr_op *op = kzalloc(sizeof(*op), GFP_KERNEL);

	if (op)
		op->cmd = cmd;
	return op;
}

static int pcierr_nl_report(struct sk_buff *skb, struct genl_info *info)
{
	u32 step = 0, state = PCIERR_STATE_FROZEN;
	struct pcierr_op *op;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, PCIERR_A_STEP))
		return -EINVAL;
	ret = pcierr_nl_enum(info, PCIERR_A_STEP, PCIERR_STEP_ERROR_DETECTED,
			     PCIERR_STEP_MAX, &step);
	if (!ret)
		ret = pcierr_nl_enum(info, PCIERR_A_STATE, PCIERR_STATE_NORMAL,
				     PCIERR_STATE_MAX, &state);
	if (ret)
		return ret;
	op = pcierr_op_new(PCIERR_CMD_REPORT);
	if (!op)
		return -ENOMEM;
	op->step = step;
	op->state = state;
	return pcierr_nl_submit(info, op, NULL);
}

static int pcierr_reset_check(struct pcierr_pe *pe, struct pcierr_op *op,
			      struct genl_info *info)
{
	u32 types;

	mutex_lock(&pcierr_topo_lock);
	types = pcierr_pe_reset_types(pe);
	mutex_unlock(&pcierr_topo_lock);
	if (types & BIT(op->reset_type))
		return 0;
	GENL_SET_ERR_MSG(info, "this reset type is not available on this PE");
	return -EOPNOTSUPP;
}

static int pcierr_nl_reset(struct sk_buff *skb, struct genl_info *info)
{
	u32 type = PCIERR_RESET_HOT;
	struct pcierr_op *op;
	int ret;

	ret = pcierr_nl_enum(info, PCIERR_A_RESET_TYPE, PCIERR_RESET_HOT,
			     PCIERR_RESET_MAX, &type);
	if (ret)
		return ret;
	op = pcierr_op_new(PCIERR_CMD_RESET);
	if (!op)
		return -ENOMEM;
	op->reset_type = type;
	return pcierr_nl_submit(info, op, pcierr_reset_check);
}

static int pcierr_nl_simple_op(struct sk_buff *skb, struct genl_info *info)
{
	struct pcierr_op *op;

	op = pcierr_op_new(info->genlhdr->cmd);
	if (!op)
		return -ENOMEM;
	return pcierr_nl_submit(info, op, NULL);
}

/* REMOVE with PCIERR_A_DEVICE: the device must be one of the PE's own. */
static int pcierr_remove_check(struct pcierr_pe *pe, struct pcierr_op *op,
			       struct genl_info *info)
{
	struct nlattr *dev_attr = info->attrs[PCIERR_A_DEVICE];
	struct pcierr_dev *drop = NULL;
	int ret = 0;

	if (!op->dev)
		return 0;
	mutex_lock(&pcierr_topo_lock);
	if (op->dev->pe != pe) {
		NL_SET_ERR_MSG_ATTR(info->extack, dev_attr,
				    "the device does not belong to this PE");
		ret = -EINVAL;
	} else if (op->dev->pdev == pe->head) {
		if (pe->root_single) {
			/* The PE's only device: remove the PE. */
			drop = op->dev;
			op->dev = NULL;
		} else {
			NL_SET_ERR_MSG_ATTR(info->extack, dev_attr,
					    "cannot remove the bridge that heads the PE");
			ret = -EINVAL;
		}
	}
	mutex_unlock(&pcierr_topo_lock);
	pcierr_dev_put(drop);
	return ret;
}

static int pcierr_nl_remove(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *dev_attr = info->attrs[PCIERR_A_DEVICE];
	struct pcierr_dev *dev = NULL;
	struct pcierr_op *op;
	int ret;

	if (dev_attr) {
		if (!pcierr_nl_addr(info, PCIERR_A_PE, &ret) ||
		    !pcierr_nl_addr(info, PCIERR_A_DEVICE, &ret))
			return ret;
		dev = pcierr_dev_lookup(nla_data(dev_attr));
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(info->extack, dev_attr,
					    "no such device");
			return -ENODEV;
		}
	}
	op = pcierr_op_new(PCIERR_CMD_REMOVE);
	if (!op) {
		pcierr_dev_put(dev);
		return -ENOMEM;
	}
	op->dev = dev;
	return pcierr_nl_submit(info, op, pcierr_remove_check);
}

static int pcierr_nl_watch(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *pe_attr = info->attrs[PCIERR_A_PE];
	struct nlattr *ms_attr = info->attrs[PCIERR_A_WATCH_INTERVAL_MS];
	struct pcierr_pe *pe;
	u32 ms;
	int ret;

	if (!pcierr_nl_addr(info, PCIERR_A_PE, &ret))
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, PCIERR_A_WATCH_INTERVAL_MS))
		return -EINVAL;
	ms = nla_get_u32(ms_attr);
	if (ms && (ms < PCIERR_WATCH_MIN_MS || ms > PCIERR_WATCH_MAX_MS)) {
		NL_SET_ERR_MSG_ATTR(info->extack, ms_attr,
				    "interval: 0 (off) or 10 ms to 1 hour");
		return -EINVAL;
	}
	pe = pcierr_pe_lookup(nla_data(pe_attr));
	if (!pe) {
		NL_SET_ERR_MSG_ATTR(info->extack, pe_attr, "no such PE");
		return -ENODEV;
	}
	ret = pcierr_watch_set(pe, ms);
	if (ret)
		NL_SET_ERR_MSG_ATTR(info->extack, pe_attr, "the PE is gone");
	pcierr_pe_put(pe);
	return ret;
}

static const struct genl_small_ops pcierr_ops[] = {
	{
		.cmd = PCIERR_CMD_GET_PE,
		.doit = pcierr_nl_get_pe,
		.dumpit = pcierr_nl_dump_pe,
	},
	{
		.cmd = PCIERR_CMD_GET_STATS,
		.doit = pcierr_nl_get_stats,
	},
	{
		.cmd = PCIERR_CMD_INJECT,
		.doit = pcierr_nl_inject,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = PCIERR_CMD_REPORT,
		.doit = pcierr_nl_report,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = PCIERR_CMD_ENABLE_IO,
		.doit = pcierr_nl_simple_op,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = PCIERR_CMD_RESET,
		.doit = pcierr_nl_reset,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = PCIERR_CMD_REMOVE,
		.doit = pcierr_nl_remove,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = PCIERR_CMD_RESCAN,
		.doit = pcierr_nl_simple_op,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = PCIERR_CMD_DISABLE,
		.doit = pcierr_nl_simple_op,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = PCIERR_CMD_ENABLE,
		.doit = pcierr_nl_simple_op,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = PCIERR_CMD_WATCH,
		.doit = pcierr_nl_watch,
		.flags = GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group pcierr_mcgrps[] = {
	{ .name = PCIERR_MCGRP_EVENTS },
};

static struct genl_family pcierr_family = {
	.name = PCIERR_GENL_NAME,
	.version = PCIERR_GENL_VERSION,
	.maxattr = PCIERR_A_MAX,
	.policy = pcierr_policy,
	.parallel_ops = true,
	.small_ops = pcierr_ops,
	.n_small_ops = ARRAY_SIZE(pcierr_ops),
	.resv_start_op = PCIERR_CMD_GET_PE,	/* reserved field checked */
	.mcgrps = pcierr_mcgrps,
	.n_mcgrps = ARRAY_SIZE(pcierr_mcgrps),
	.module = THIS_MODULE,
};

void pcierr_nl_event(const struct pcierr_event_info *ev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pcierr_family, 0, PCIERR_CMD_EVENT);
	if (!hdr ||
	    nla_put_string(msg, PCIERR_A_PE, ev->pe) ||
	    nla_put_string(msg, PCIERR_A_DEVICE, ev->device) ||
	    nla_put_u32(msg, PCIERR_A_STATE, pcierr_channel_state(ev->state)) ||
	    nla_put_u32(msg, PCIERR_A_TIME_UNAVAIL_MS, ev->time_unavail_ms) ||
	    nla_put_u32(msg, PCIERR_A_SOURCE, ev->source) ||
	    nla_put_u64_64bit(msg, PCIERR_A_SEQ, ev->seq, PCIERR_A_PAD) ||
	    nla_put_u64_64bit(msg, PCIERR_A_TIMESTAMP_NS, ev->timestamp_ns,
			      PCIERR_A_PAD) ||
	    nla_put_u32(msg, PCIERR_A_ERROR_GEN, ev->error_gen)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	pcierr_nl_multicast(msg);
}

void pcierr_nl_overflow(const struct pcierr_overflow_info *ov)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pcierr_family, 0, PCIERR_CMD_OVERFLOW);
	if (!hdr ||
	    nla_put_u64_64bit(msg, PCIERR_A_DROPPED, ov->dropped,
			      PCIERR_A_PAD) ||
	    nla_put_u64_64bit(msg, PCIERR_A_SEQ, ov->next_seq, PCIERR_A_PAD)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	pcierr_nl_multicast(msg);
}

void pcierr_nl_op_done(const struct pcierr_op *op)
{
	struct nlattr *nest, *entry;
	struct sk_buff *msg;
	unsigned int i;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE + op->nres * 64, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pcierr_family, 0, PCIERR_CMD_OP_DONE);
	if (!hdr ||
	    nla_put_u64_64bit(msg, PCIERR_A_OP_ID, op->id, PCIERR_A_PAD) ||
	    nla_put_u32(msg, PCIERR_A_OP, op->cmd) ||
	    nla_put_string(msg, PCIERR_A_PE, op->pe->name))
		goto nospace;
	if (op->cmd == PCIERR_CMD_REPORT &&
	    (nla_put_u32(msg, PCIERR_A_STEP, op->step) ||
	     nla_put_u32(msg, PCIERR_A_RESULT, op->merged)))
		goto nospace;
	if (op->nres) {
		nest = nla_nest_start(msg, PCIERR_A_RESULTS);
		if (!nest)
			goto nospace;
		for (i = 0; i < op->nres; i++) {
			entry = nla_nest_start(msg, PCIERR_A_RESULTS_ENTRY);
			if (!entry ||
			    nla_put_string(msg, PCIERR_DEV_A_ADDR,
					   op->res[i].name) ||
			    nla_put_u32(msg, PCIERR_DEV_A_RESULT,
					op->res[i].result))
				goto nospace;
			nla_nest_end(msg, entry);
		}
		nla_nest_end(msg, nest);
	}
	if (nla_put_u64_64bit(msg, PCIERR_A_DURATION_NS, op->duration_ns,
			      PCIERR_A_PAD) ||
	    nla_put_u32(msg, PCIERR_A_ERRNO, -op->err) ||
	    nla_put_u32(msg, PCIERR_A_PE_STATE, op->pe_state))
		goto nospace;
	genlmsg_end(msg, hdr);
	pcierr_nl_multicast(msg);
	return;

nospace:
	pr_warn("PE %s: OP_DONE %llu too large, not sent\n", op->pe->name,
		op->id);
	nlmsg_free(msg);
}

/* Is anybody subscribed to the events group? (the owner timeout) */
bool pcierr_nl_has_listeners(void)
{
	bool ret;

	down_read(&pcierr_nl_sem);
	ret = pcierr_nl_up && genl_has_listeners(&pcierr_family, &init_net, 0);
	up_read(&pcierr_nl_sem);
	return ret;
}

int pcierr_nl_init(void)
{
	int ret = genl_register_family(&pcierr_family);

	if (ret)
		return ret;
	down_write(&pcierr_nl_sem);
	pcierr_nl_up = true;
	up_write(&pcierr_nl_sem);
	return 0;
}

void pcierr_nl_exit(void)
{
	down_write(&pcierr_nl_sem);
	pcierr_nl_up = false;
	up_write(&pcierr_nl_sem);
	genl_unregister_family(&pcierr_family);
}

MODULE_ALIAS_GENL_FAMILY(PCIERR_GENL_NAME);
