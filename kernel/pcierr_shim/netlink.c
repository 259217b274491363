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
#include "platform.h"

static DECLARE_RWSEM(pcierr_nl_sem);
static bool pcierr_nl_up;		/* pcierr_nl_sem */

static unsigned int test_dump_split;
module_param(test_dump_split, uint, 0644);
MODULE_PARM_DESC(test_dump_split,
		 "for tests: at most this many devices per GET_PE dump message, 0 for as many as fit");

/* ops->internal_flags: the command changes state (CAP_SYS_ADMIN) */
#define PCIERR_NL_F_ADMIN	BIT(0)

static struct genl_family pcierr_family;

static int pcierr_hex(const char **p, unsigned int min, unsigned int max,
		      unsigned int *val)
{
	unsigned int n = 0;
	int d;

	*val = 0;
	while (n < max && (d = hex_to_bin(**p)) >= 0) {
		*val = *val << 4 | d;
		(*p)++;
		n++;
	}
	return n >= min ? 0 : -EINVAL;
}

/*
 * "DDDD:BB:DD.F" in either case (a domain of 4 to 8 hex digits, device at
 * most 0x1f, function at most 7), compared by value (D28): @canon, if not
 * NULL, gets pci_name()'s lower-case form.
 */
static int pcierr_addr_parse(const char *s, char *canon)
{
	unsigned int dom, bus, dev, fn;

	if (pcierr_hex(&s, 4, 8, &dom) || *s++ != ':' ||
	    pcierr_hex(&s, 2, 2, &bus) || *s++ != ':' ||
	    pcierr_hex(&s, 2, 2, &dev) || dev > 0x1f || *s++ != '.' ||
	    pcierr_hex(&s, 1, 1, &fn) || fn > 7 || *s)
		return -EINVAL;
	if (canon)
		snprintf(canon, PCIERR_ADDR_MAX, "%04x:%02x:%02x.%u",
			 dom, bus, dev, fn);
	return 0;
}

static int pcierr_nl_validate_addr(const struct nlattr *attr,
				   struct netlink_ext_ack *extack)
{
	if (pcierr_addr_parse(nla_data(attr), NULL)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "malformed address: expected DDDD:BB:DD.F");
		return -EINVAL;
	}
	return 0;
}

#define PCIERR_POLICY_ADDR \
	NLA_POLICY_VALIDATE_FN(NLA_NUL_STRING, pcierr_nl_validate_addr, \
			       PCIERR_ADDR_MAX - 1)
#define PCIERR_POLICY_PE_ID	NLA_POLICY_MIN(NLA_U64, 1)

static const struct nla_policy pcierr_get_pe_policy[PCIERR_A_DEVICE + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_DEVICE] = PCIERR_POLICY_ADDR,
};

static const struct nla_policy pcierr_inject_policy[PCIERR_A_PE_ID + 1] = {
	[PCIERR_A_DEVICE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
	[PCIERR_A_STATE] = NLA_POLICY_RANGE(NLA_U32, PCIERR_STATE_FROZEN,
					    PCIERR_STATE_PERM_FAILURE),
	[PCIERR_A_TIME_UNAVAIL_MS] = { .type = NLA_U32 },
};

static const struct nla_policy pcierr_report_policy[PCIERR_A_PE_ID + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
	[PCIERR_A_STEP] = NLA_POLICY_RANGE(NLA_U32, PCIERR_STEP_ERROR_DETECTED,
					   PCIERR_STEP_MAX),
	[PCIERR_A_STATE] = NLA_POLICY_RANGE(NLA_U32, PCIERR_STATE_NORMAL,
					    PCIERR_STATE_PERM_FAILURE),
};

static const struct nla_policy pcierr_reset_policy[PCIERR_A_PE_ID + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
	[PCIERR_A_RESET_TYPE] = NLA_POLICY_RANGE(NLA_U32, PCIERR_RESET_HOT,
						 PCIERR_RESET_MAX),
};

static const struct nla_policy pcierr_remove_policy[PCIERR_A_PE_ID + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_DEVICE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
};

static const struct nla_policy pcierr_recover_policy[PCIERR_A_PE_ID + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
	[PCIERR_A_STATE] = NLA_POLICY_RANGE(NLA_U32, PCIERR_STATE_NORMAL,
					    PCIERR_STATE_FROZEN),
	[PCIERR_A_RESET_TYPE] = NLA_POLICY_RANGE(NLA_U32, PCIERR_RESET_HOT,
						 PCIERR_RESET_MAX),
};

/* ENABLE_IO, RESCAN, DISABLE, ENABLE */
static const struct nla_policy pcierr_pe_op_policy[PCIERR_A_PE_ID + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
};

static const struct nla_policy pcierr_arm_policy[PCIERR_A_AUTO_BUDGET + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
	[PCIERR_A_RESET_TYPE] = NLA_POLICY_RANGE(NLA_U32, PCIERR_RESET_HOT,
						 PCIERR_RESET_MAX),
	[PCIERR_A_AUTO_BUDGET] = NLA_POLICY_MAX(NLA_U32, 1),
};

static struct netlink_range_validation pcierr_hold_range = {
	.min = 0,
	.max = PCIERR_HOLD_MAX_MS,
};

static const struct nla_policy pcierr_hold_policy[PCIERR_A_HOLD_MS + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
	[PCIERR_A_HOLD_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &pcierr_hold_range),
};

/* beyond NLA_POLICY_RANGE()'s s16 bounds */
static struct netlink_range_validation pcierr_watch_range = {
	.min = PCIERR_WATCH_MIN_MS,
	.max = PCIERR_WATCH_MAX_MS,
};

static const struct nla_policy pcierr_watch_policy[PCIERR_A_PE_ID + 1] = {
	[PCIERR_A_PE] = PCIERR_POLICY_ADDR,
	[PCIERR_A_PE_ID] = PCIERR_POLICY_PE_ID,
	[PCIERR_A_WATCH_INTERVAL_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &pcierr_watch_range),
};

/* Commands that change state need CAP_SYS_ADMIN (D5). */
static int pcierr_nl_pre_doit(const struct pcierr_genl_op *ops,
			      struct sk_buff *skb, struct genl_info *info)
{
	if ((ops->internal_flags & PCIERR_NL_F_ADMIN) &&
	    !netlink_capable(skb, CAP_SYS_ADMIN)) {
		GENL_SET_ERR_MSG(info, "this command needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	return 0;
}

/* The canonical form of the (policy-checked) address in @type, or -EINVAL. */
static int pcierr_nl_addr(struct genl_info *info, int type, char *canon)
{
	if (GENL_REQ_ATTR_CHECK(info, type))
		return -EINVAL;
	return pcierr_addr_parse(nla_data(info->attrs[type]), canon);
}

/* The PE named by PCIERR_A_PE, referenced; NULL and an errno if none. */
static struct pcierr_pe *pcierr_nl_pe(struct genl_info *info, int *err)
{
	char name[PCIERR_ADDR_MAX];
	struct pcierr_pe *pe;

	*err = pcierr_nl_addr(info, PCIERR_A_PE, name);
	if (*err)
		return NULL;
	pe = pcierr_pe_lookup(name);
	if (!pe) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PCIERR_A_PE],
				    "no such PE");
		*err = -ENODEV;
	}
	return pe;
}

/* The device named by PCIERR_A_DEVICE, referenced; NULL and an errno. */
static struct pcierr_dev *pcierr_nl_dev(struct genl_info *info, int *err)
{
	char name[PCIERR_ADDR_MAX];
	struct pcierr_dev *dev;

	*err = pcierr_nl_addr(info, PCIERR_A_DEVICE, name);
	if (*err)
		return NULL;
	dev = pcierr_dev_lookup(name);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PCIERR_A_DEVICE],
				    "no such device");
		*err = -ENODEV;
	}
	return dev;
}

static int pcierr_nl_stale(struct genl_info *info)
{
	NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PCIERR_A_PE_ID],
			    "stale PE id: the PE changed, read it again");
	return -ESTALE;
}

/* PCIERR_A_PE_ID is required and must be @pe's id now. */
static int pcierr_nl_check_id(struct genl_info *info, struct pcierr_pe *pe)
{
	if (GENL_REQ_ATTR_CHECK(info, PCIERR_A_PE_ID))
		return -EINVAL;
	if (nla_get_u64(info->attrs[PCIERR_A_PE_ID]) != pcierr_pe_id(pe))
		return pcierr_nl_stale(info);
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

static int pcierr_fill_dev(struct sk_buff *skb, struct pcierr_dev *dev,
			   bool dsn)
{
	struct pci_dev *pdev = dev->pdev;	/* identity: the core's own */
	struct nlattr *nest;

	nest = nla_nest_start(skb, PCIERR_A_PE_DEVICES_ENTRY);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, PCIERR_DEV_A_ADDR, dev->name) ||
	    nla_put_u16(skb, PCIERR_DEV_A_VENDOR, pdev->vendor) ||
	    nla_put_u16(skb, PCIERR_DEV_A_DEVICE, pdev->device) ||
	    nla_put_u16(skb, PCIERR_DEV_A_SUBVENDOR, pdev->subsystem_vendor) ||
	    nla_put_u16(skb, PCIERR_DEV_A_SUBDEVICE, pdev->subsystem_device) ||
	    nla_put_u32(skb, PCIERR_DEV_A_CLASS, pdev->class) ||
	    (dsn && dev->dsn &&
	     nla_put_u64_64bit(skb, PCIERR_DEV_A_DSN, dev->dsn,
			       PCIERR_DEV_A_PAD)) ||
	    (dev->driver && nla_put_string(skb, PCIERR_DEV_A_DRIVER,
					   dev->driver)) ||
	    nla_put_u32(skb, PCIERR_DEV_A_HANDLERS,
			pcierr_dev_handlers(dev)) ||
	    nla_put_u32(skb, PCIERR_DEV_A_STATE,
			pcierr_channel_state(READ_ONCE(pdev->error_state))) ||
	    nla_put_u32(skb, PCIERR_DEV_A_ERROR_GEN,
			atomic_read(&dev->error_gen)) ||
	    nla_put_u32(skb, PCIERR_DEV_A_FLAGS,
			pci_is_bridge(pdev) ? PCIERR_DEV_F_BRIDGE : 0)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The one place a driver's answer (pci_ers_result_t, with why there was
 * none) becomes the uapi's enum pcierr_result, for the wire.
 */
static u32 pcierr_nl_result(struct pcierr_answer a)
{
	switch (a.reason) {
	case PCIERR_REASON_UNSET:
		return PCIERR_RESULT_UNSPEC;
	case PCIERR_REASON_NO_DRIVER:
		return PCIERR_RESULT_NO_DRIVER;
	case PCIERR_REASON_GONE:
		return PCIERR_RESULT_GONE;
	}
	if (a.ers == PCI_ERS_RESULT_CAN_RECOVER)
		return PCIERR_RESULT_CAN_RECOVER;
	if (a.ers == PCI_ERS_RESULT_NEED_RESET)
		return PCIERR_RESULT_NEED_RESET;
	if (a.ers == PCI_ERS_RESULT_DISCONNECT)
		return PCIERR_RESULT_DISCONNECT;
	if (a.ers == PCI_ERS_RESULT_RECOVERED)
		return PCIERR_RESULT_RECOVERED;
	return PCIERR_RESULT_NONE;
}

/* One RECOVER step; its device results when @res is not NULL. */
static int pcierr_fill_step(struct sk_buff *skb,
			    const struct pcierr_step_status *st,
			    const struct pcierr_dev_result *res, unsigned int nres)
{
	struct nlattr *nest, *list, *entry;
	unsigned int i;

	nest = nla_nest_start(skb, PCIERR_A_RECOVER_STEPS_ENTRY);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, PCIERR_RSTEP_A_OP, st->cmd) ||
	    (st->cmd == PCIERR_CMD_REPORT &&
	     (nla_put_u32(skb, PCIERR_RSTEP_A_STEP, st->step) ||
	      nla_put_u32(skb, PCIERR_RSTEP_A_RESULT,
			  pcierr_nl_result(st->merged)))) ||
	    (st->cmd == PCIERR_CMD_RESET &&
	     nla_put_u32(skb, PCIERR_RSTEP_A_RESET_TYPE, st->reset_type)) ||
	    nla_put_u32(skb, PCIERR_RSTEP_A_ERRNO, -st->err) ||
	    nla_put_u64_64bit(skb, PCIERR_RSTEP_A_DURATION_NS, st->duration_ns,
			      PCIERR_RSTEP_A_PAD))
		goto cancel;
	if (res && nres) {
		list = nla_nest_start(skb, PCIERR_RSTEP_A_RESULTS);
		if (!list)
			goto cancel;
		for (i = 0; i < nres; i++) {
			entry = nla_nest_start(skb, PCIERR_A_RESULTS_ENTRY);
			if (!entry ||
			    nla_put_string(skb, PCIERR_DEV_A_ADDR, res[i].name) ||
			    nla_put_u32(skb, PCIERR_DEV_A_RESULT,
					pcierr_nl_result(res[i].answer)))
				goto cancel;
			nla_nest_end(skb, entry);
		}
		nla_nest_end(skb, list);
	}
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* An operation reported by its steps: a RECOVER, an OWNER_RECOVER */
static bool pcierr_nl_has_steps(u8 cmd)
{
	return cmd == PCIERR_CMD_RECOVER || cmd == PCIERR_CMD_OWNER_RECOVER;
}

/* PCIERR_A_RECOVER_STEPS and PCIERR_A_RECOVER_STOP of a RECOVER */
static int pcierr_fill_steps(struct sk_buff *skb, u32 stop,
			     const struct pcierr_step_status *steps,
			     unsigned int nsteps,
			     struct pcierr_dev_result * const *res,
			     const unsigned int *nres)
{
	struct nlattr *nest;
	unsigned int i;

	if (nla_put_u32(skb, PCIERR_A_RECOVER_STOP, stop))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, PCIERR_A_RECOVER_STEPS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < nsteps; i++)
		if (pcierr_fill_step(skb, &steps[i], res ? res[i] : NULL,
				     res ? nres[i] : 0))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* PCIERR_A_LAST_OP: what the last operation's OP_DONE said (D18). */
static int pcierr_fill_last_op(struct sk_buff *skb,
			       const struct pcierr_op_status *st)
{
	struct nlattr *nest;

	if (!st->id)
		return 0;
	nest = nla_nest_start(skb, PCIERR_A_LAST_OP);
	if (!nest ||
	    nla_put_u64_64bit(skb, PCIERR_A_OP_ID, st->id, PCIERR_A_PAD) ||
	    nla_put_u32(skb, PCIERR_A_OP, st->cmd) ||
	    (st->cmd == PCIERR_CMD_REPORT &&
	     nla_put_u32(skb, PCIERR_A_STEP, st->step)) ||
	    (st->done && st->cmd == PCIERR_CMD_REPORT &&
	     nla_put_u32(skb, PCIERR_A_RESULT,
			 pcierr_nl_result(st->merged))) ||
	    (st->done &&
	     (nla_put_u32(skb, PCIERR_A_ERRNO, -st->err) ||
	      nla_put_u64_64bit(skb, PCIERR_A_DURATION_NS, st->duration_ns,
				PCIERR_A_PAD) ||
	      nla_put_u32(skb, PCIERR_A_PE_STATE, st->pe_state))) ||
	    (st->done && pcierr_nl_has_steps(st->cmd) &&
	     pcierr_fill_steps(skb, st->stop, st->steps, st->nsteps, NULL,
			       NULL)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One PE message with the PE's devices from the *@first-th on. Returns 0
 * when the rest of them are in (*@first = 0), -EMSGSIZE when the message
 * did not fit (nothing added). With @split, a message that cannot take
 * every device ends after as many as fit (at least one) and 1 is
 * returned, *@first advanced: the next message continues the PE (the
 * uapi header's splitting rule, D6). Caller holds pcierr_topo_lock.
 */
static int pcierr_fill_pe(struct sk_buff *skb, struct pcierr_pe *pe,
			  u32 portid, u32 seq, int flags,
			  struct netlink_callback *cb, bool dsn,
			  unsigned long *first, bool split)
{
	unsigned long i = 0, n = 0;
	struct pcierr_op_status last;
	struct pcierr_dev *dev;
	enum pcierr_pe_state state;
	struct nlattr *nest;
	unsigned long lflags;
	unsigned int watch;
	bool full = false;
	void *hdr;
	u64 id;

	hdr = genlmsg_put(skb, portid, seq, &pcierr_family, flags,
			  PCIERR_CMD_GET_PE);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	raw_spin_lock_irqsave(&pe->lock, lflags);
	state = pe->state;
	watch = pe->watch_ms;
	id = pe->id;
	last = pe->last_op;
	raw_spin_unlock_irqrestore(&pe->lock, lflags);

	if (nla_put_string(skb, PCIERR_A_PE, pe->name) ||
	    nla_put_u64_64bit(skb, PCIERR_A_PE_ID, id, PCIERR_A_PAD) ||
	    nla_put_u32(skb, PCIERR_A_PE_STATE, state) ||
	    nla_put_u32(skb, PCIERR_A_PE_FLAGS, pcierr_pe_flags(pe)) ||
	    nla_put_u32(skb, PCIERR_A_RESET_TYPES,
			pcierr_platform_reset_types(pe, pcierr_pe_reset_types(pe))) ||
	    nla_put_u32(skb, PCIERR_A_BACKEND, pcierr_platform_backend(pe)) ||
	    nla_put_u32(skb, PCIERR_A_GENERATION, pcierr_topo_gen()) ||
	    nla_put_u32(skb, PCIERR_A_WATCH_INTERVAL_MS, watch) ||
	    pcierr_fill_last_op(skb, &last))
		goto cancel;

	nest = nla_nest_start(skb, PCIERR_A_PE_DEVICES);
	if (!nest)
		goto cancel;
	list_for_each_entry(dev, &pe->devs, pe_node) {
		if (i++ < *first)
			continue;
		if ((test_dump_split && n >= test_dump_split && cb) ||
		    pcierr_fill_dev(skb, dev, dsn)) {
			full = true;
			break;
		}
		n++;
	}
	if (full && (!split || !n))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	if (full) {
		*first += n;
		return 1;
	}
	*first = 0;
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int pcierr_nl_get_pe(struct sk_buff *skb, struct genl_info *info)
{
	bool dsn = netlink_capable(skb, CAP_SYS_ADMIN);
	size_t size = NLMSG_GOODSIZE;
	unsigned long first = 0;
	struct pcierr_dev *dev;
	struct pcierr_pe *pe;
	struct sk_buff *msg;
	int ret;

	if (!info->attrs[PCIERR_A_PE] == !info->attrs[PCIERR_A_DEVICE]) {
		GENL_SET_ERR_MSG(info, "give either PCIERR_A_PE or PCIERR_A_DEVICE");
		return -EINVAL;
	}
	if (info->attrs[PCIERR_A_PE]) {
		pe = pcierr_nl_pe(info, &ret);
		if (!pe)
			return ret;
	} else {
		dev = pcierr_nl_dev(info, &ret);
		if (!dev)
			return ret;
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
				     0, NULL, dsn, &first, false);
		mutex_unlock(&pcierr_topo_lock);
		if (!ret) {
			ret = genlmsg_reply(msg, info);
			break;
		}
		nlmsg_free(msg);
		if (size >= 16 * NLMSG_GOODSIZE) {
			GENL_SET_ERR_MSG(info, "PE too large for one message: dump it");
			break;
		}
		size *= 4;
	}
	pcierr_pe_put(pe);
	return ret;
}

/*
 * cb->args[0]: the index of the PE to continue with; cb->args[1]: its
 * first device not sent yet. A topology change in between is caught by
 * genl_dump_check_consistent() (NLM_F_DUMP_INTR).
 */
static int pcierr_nl_dump_pe(struct sk_buff *skb, struct netlink_callback *cb)
{
	bool dsn = netlink_capable(cb->skb, CAP_SYS_ADMIN);
	long idx = 0, start = cb->args[0];
	unsigned long first = cb->args[1];
	struct pcierr_pe *pe;
	int ret = 0;

	mutex_lock(&pcierr_topo_lock);
	cb->seq = pcierr_topo_gen();
	list_for_each_entry(pe, &pcierr_pes, node) {
		if (idx < start) {
			idx++;
			continue;
		}
		/* a PE is split only if it does not fit in an empty message */
		ret = pcierr_fill_pe(skb, pe, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI, cb, dsn,
				     &first, !skb->len);
		if (ret)
			break;
		idx++;
	}
	mutex_unlock(&pcierr_topo_lock);
	cb->args[0] = idx;
	cb->args[1] = first;
	/* not even the PE's attributes and one device fit: fail, not end */
	return skb->len ?: ret;
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
		if (nla_put_u64_64bit(msg, i, pcierr_stat_read(i),
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

	dev = pcierr_nl_dev(info, &ret);
	if (!dev)
		return ret;
	if (info->attrs[PCIERR_A_STATE])
		state = nla_get_u32(info->attrs[PCIERR_A_STATE]);
	if (info->attrs[PCIERR_A_TIME_UNAVAIL_MS])
		ms = nla_get_u32(info->attrs[PCIERR_A_TIME_UNAVAIL_MS]);

	ret = pcierr_nl_check_id(info, dev->pe);
	if (ret)
		goto out;
	if (pci_is_bridge(dev->pdev)) {
		NL_SET_ERR_MSG_ATTR(info->extack, dev_attr,
				    "cannot inject on a bridge: name a device below it");
		ret = -EINVAL;
		goto out;
	}
	if (pcierr_platform_owned(dev)) {
		NL_SET_ERR_MSG_ATTR(info->extack, dev_attr,
				    "the kernel's EEH owns this device's PE");
		ret = -EBUSY;
		goto out;
	}
	/*
	 * Sized to the reply: with init_on_alloc a NLMSG_GOODSIZE buffer is
	 * a page cleared per INJECT, and netlink_trim() copies it again.
	 */
	msg = genlmsg_new(nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
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
	/*
	 * The PE is cut off when the reply arrives, but for a device asleep:
	 * waking it would run its driver under cb_lock (R12); the event
	 * work, queued by the detection, wakes and cuts it.
	 */
	pcierr_pe_apply_freeze(dev->pe, false);

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

/*
 * Accept @op on the PE named by PCIERR_A_PE (and PCIERR_A_PE_ID), reply
 * with its id, and only then start it: the reply always comes before the
 * OP_DONE (D19). Takes @op (and its device reference) over.
 */
static int pcierr_nl_submit(struct genl_info *info, struct pcierr_op *op,
			    int (*check)(struct pcierr_pe *pe,
					 struct pcierr_op *op,
					 struct genl_info *info))
{
	struct nlattr *pe_attr = info->attrs[PCIERR_A_PE];
	struct sk_buff *msg = NULL;
	struct pcierr_pe *pe;
	void *hdr;
	int ret;

	pe = pcierr_nl_pe(info, &ret);
	if (!pe)
		goto err;
	/* a stale view first; checked again when the PE is claimed */
	ret = pcierr_nl_check_id(info, pe);
	if (ret)
		goto err;
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

	ret = pcierr_op_claim(pe, op,
			      nla_get_u64(info->attrs[PCIERR_A_PE_ID]));
	if (ret == -ESTALE) {
		pcierr_nl_stale(info);
		goto err;
	}
	if (ret == -EBUSY) {
		NL_SET_ERR_MSG_ATTR(info->extack, pe_attr,
				    "an operation is in flight on this PE");
		goto err;
	}
	if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack, pe_attr, "the PE is gone");
		goto err;
	}
	pcierr_pe_put(pe);

	/* Cannot fail: the message has room for one u64. */
	if (!nla_put_u64_64bit(msg, PCIERR_A_OP_ID, op->id, PCIERR_A_PAD)) {
		genlmsg_end(msg, hdr);
		genlmsg_reply(msg, info);
	} else {
		nlmsg_free(msg);
	}
	/*
	 * Accepted: it runs even if the reply was lost (a requester that went
	 * away); its outcome is in OP_DONE and in GET_PE's PCIERR_A_LAST_OP.
	 */
	pcierr_op_start(op);
	return 0;

err:
	nlmsg_free(msg);
	pcierr_pe_put(pe);
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
	struct pcierr_op *op;

	if (GENL_REQ_ATTR_CHECK(info, PCIERR_A_STEP))
		return -EINVAL;
	op = pcierr_op_new(PCIERR_CMD_REPORT);
	if (!op)
		return -ENOMEM;
	op->step = nla_get_u32(info->attrs[PCIERR_A_STEP]);
	op->state = PCIERR_STATE_FROZEN;
	if (info->attrs[PCIERR_A_STATE])
		op->state = nla_get_u32(info->attrs[PCIERR_A_STATE]);
	return pcierr_nl_submit(info, op, NULL);
}

static int pcierr_reset_check(struct pcierr_pe *pe, struct pcierr_op *op,
			      struct genl_info *info)
{
	u32 types;

	mutex_lock(&pcierr_topo_lock);
	types = pcierr_platform_reset_types(pe, pcierr_pe_reset_types(pe));
	mutex_unlock(&pcierr_topo_lock);
	if (types & BIT(op->reset_type))
		return 0;
	GENL_SET_ERR_MSG(info, "this reset type is not available on this PE");
	return -EOPNOTSUPP;
}

static int pcierr_nl_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct pcierr_op *op;

	op = pcierr_op_new(PCIERR_CMD_RESET);
	if (!op)
		return -ENOMEM;
	op->reset_type = PCIERR_RESET_HOT;
	if (info->attrs[PCIERR_A_RESET_TYPE])
		op->reset_type = nla_get_u32(info->attrs[PCIERR_A_RESET_TYPE]);
	return pcierr_nl_submit(info, op, pcierr_reset_check);
}

static int pcierr_nl_recover(struct sk_buff *skb, struct genl_info *info)
{
	struct pcierr_op *op;

	op = pcierr_op_new(PCIERR_CMD_RECOVER);
	if (!op)
		return -ENOMEM;
	op->state = PCIERR_STATE_FROZEN;
	if (info->attrs[PCIERR_A_STATE])
		op->state = nla_get_u32(info->attrs[PCIERR_A_STATE]);
	op->reset_type = PCIERR_RESET_HOT;
	if (info->attrs[PCIERR_A_RESET_TYPE])
		op->reset_type = nla_get_u32(info->attrs[PCIERR_A_RESET_TYPE]);
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
	struct pcierr_dev *dev = NULL;
	struct pcierr_op *op;
	int ret;

	if (info->attrs[PCIERR_A_DEVICE]) {
		if (GENL_REQ_ATTR_CHECK(info, PCIERR_A_PE))
			return -EINVAL;
		dev = pcierr_nl_dev(info, &ret);
		if (!dev)
			return ret;
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
	struct nlattr *ms_attr = info->attrs[PCIERR_A_WATCH_INTERVAL_MS];
	struct pcierr_pe *pe;
	int ret;

	pe = pcierr_nl_pe(info, &ret);
	if (!pe)
		return ret;
	ret = pcierr_nl_check_id(info, pe);
	if (!ret) {
		ret = pcierr_watch_set(pe, ms_attr ? nla_get_u32(ms_attr) : 0);
		if (ret)
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[PCIERR_A_PE],
					    "the PE is gone");
	}
	pcierr_pe_put(pe);
	return ret;
}

/* What an ARM or a HOLD refused says: the id moved, or the PE is gone */
static void pcierr_nl_claim_error(struct genl_info *info, int ret)
{
	if (ret == -ESTALE)
		pcierr_nl_stale(info);
	else if (ret)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PCIERR_A_PE],
				    "the PE is gone");
}

/* Pre-authorise (or withdraw) one automatic RECOVER: auto.c */
static int pcierr_nl_arm(struct sk_buff *skb, struct genl_info *info)
{
	u32 type = PCIERR_RESET_HOT, types, budget;
	struct pcierr_pe *pe;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, PCIERR_A_AUTO_BUDGET))
		return -EINVAL;
	budget = nla_get_u32(info->attrs[PCIERR_A_AUTO_BUDGET]);
	if (info->attrs[PCIERR_A_RESET_TYPE])
		type = nla_get_u32(info->attrs[PCIERR_A_RESET_TYPE]);
	pe = pcierr_nl_pe(info, &ret);
	if (!pe)
		return ret;
	ret = pcierr_nl_check_id(info, pe);
	if (ret)
		goto out;
	if (budget) {
		mutex_lock(&pcierr_topo_lock);
		types = pcierr_platform_reset_types(pe,
						    pcierr_pe_reset_types(pe));
		mutex_unlock(&pcierr_topo_lock);
		if (!(types & BIT(type))) {
			GENL_SET_ERR_MSG(info, "this reset type is not available on this PE");
			ret = -EOPNOTSUPP;
			goto out;
		}
	}
	ret = pcierr_auto_arm(pe, nla_get_u64(info->attrs[PCIERR_A_PE_ID]),
			      budget, type, info->snd_portid);
	pcierr_nl_claim_error(info, ret);
out:
	pcierr_pe_put(pe);
	return ret;
}

/* Keep the owner timeout away from a PE, or let it act again: owner.c */
static int pcierr_nl_hold(struct sk_buff *skb, struct genl_info *info)
{
	struct pcierr_pe *pe;
	u32 ms;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, PCIERR_A_HOLD_MS))
		return -EINVAL;
	ms = nla_get_u32(info->attrs[PCIERR_A_HOLD_MS]);
	if (ms && ms < PCIERR_HOLD_MIN_MS) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PCIERR_A_HOLD_MS],
				    "a lease shorter than PCIERR_HOLD_MIN_MS");
		return -ERANGE;
	}
	pe = pcierr_nl_pe(info, &ret);
	if (!pe)
		return ret;
	ret = pcierr_nl_check_id(info, pe);
	if (ret)
		goto out;
	ret = pcierr_owner_hold(pe, nla_get_u64(info->attrs[PCIERR_A_PE_ID]),
				ms, info->snd_portid);
	pcierr_nl_claim_error(info, ret);
out:
	pcierr_pe_put(pe);
	return ret;
}

/* A command that changes state; its policy is [PCIERR_A_PE_ID + 1]. */
#define PCIERR_OP(_cmd, _doit, _policy)					\
	{								\
		.cmd = (_cmd),						\
		.doit = (_doit),					\
		.policy = (_policy),					\
		.maxattr = PCIERR_A_PE_ID,				\
		.flags = GENL_ADMIN_PERM,				\
		.internal_flags = PCIERR_NL_F_ADMIN,			\
	}

static const struct genl_ops pcierr_ops[] = {
	{
		.cmd = PCIERR_CMD_GET_PE,
		.doit = pcierr_nl_get_pe,
		.dumpit = pcierr_nl_dump_pe,
		.policy = pcierr_get_pe_policy,
		.maxattr = ARRAY_SIZE(pcierr_get_pe_policy) - 1,
	},
	{
		/* no attributes: without a policy all are refused */
		.cmd = PCIERR_CMD_GET_STATS,
		.doit = pcierr_nl_get_stats,
	},
	PCIERR_OP(PCIERR_CMD_INJECT, pcierr_nl_inject, pcierr_inject_policy),
	PCIERR_OP(PCIERR_CMD_REPORT, pcierr_nl_report, pcierr_report_policy),
	PCIERR_OP(PCIERR_CMD_ENABLE_IO, pcierr_nl_simple_op,
		  pcierr_pe_op_policy),
	PCIERR_OP(PCIERR_CMD_RESET, pcierr_nl_reset, pcierr_reset_policy),
	PCIERR_OP(PCIERR_CMD_REMOVE, pcierr_nl_remove, pcierr_remove_policy),
	PCIERR_OP(PCIERR_CMD_RESCAN, pcierr_nl_simple_op, pcierr_pe_op_policy),
	PCIERR_OP(PCIERR_CMD_DISABLE, pcierr_nl_simple_op,
		  pcierr_pe_op_policy),
	PCIERR_OP(PCIERR_CMD_ENABLE, pcierr_nl_simple_op, pcierr_pe_op_policy),
	PCIERR_OP(PCIERR_CMD_WATCH, pcierr_nl_watch, pcierr_watch_policy),
	PCIERR_OP(PCIERR_CMD_RECOVER, pcierr_nl_recover, pcierr_recover_policy),
	{
		.cmd = PCIERR_CMD_ARM,
		.doit = pcierr_nl_arm,
		.policy = pcierr_arm_policy,
		.maxattr = ARRAY_SIZE(pcierr_arm_policy) - 1,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = PCIERR_NL_F_ADMIN,
	},
	{
		.cmd = PCIERR_CMD_HOLD,
		.doit = pcierr_nl_hold,
		.policy = pcierr_hold_policy,
		.maxattr = ARRAY_SIZE(pcierr_hold_policy) - 1,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = PCIERR_NL_F_ADMIN,
	},
};

/* Not world-readable where the kernel can restrict it (D23). */
#ifdef GENL_MCAST_CAP_NET_ADMIN
#define PCIERR_MCGRP_FLAGS	GENL_MCAST_CAP_NET_ADMIN
#else
#define PCIERR_MCGRP_FLAGS	0
#endif

static const struct genl_multicast_group pcierr_mcgrps[] = {
	{ .name = PCIERR_MCGRP_EVENTS, .flags = PCIERR_MCGRP_FLAGS },
};

static struct genl_family pcierr_family = {
	.name = PCIERR_GENL_NAME,
	.version = PCIERR_GENL_VERSION,
	.parallel_ops = true,
	.pre_doit = pcierr_nl_pre_doit,
	.ops = pcierr_ops,
	.n_ops = ARRAY_SIZE(pcierr_ops),
	.resv_start_op = PCIERR_CMD_GET_PE,	/* strict: every op has a policy */
	.mcgrps = pcierr_mcgrps,
	.n_mcgrps = ARRAY_SIZE(pcierr_mcgrps),
	.module = THIS_MODULE,
};

/*
 * An EVENT's size: its attributes (two addresses, four u64 and four u32),
 * or a whole NLMSG_GOODSIZE where the platform adds its error detail.
 * Not NLMSG_GOODSIZE everywhere: one is allocated (and, with
 * init_on_alloc, cleared) per event, a storm's worth of them.
 */
static size_t pcierr_nl_event_size(void)
{
	if (IS_ENABLED(CONFIG_PPC_PSERIES))
		return NLMSG_GOODSIZE;
	return 2 * nla_total_size(PCIERR_ADDR_MAX) +
	       4 * nla_total_size_64bit(sizeof(u64)) +
	       4 * nla_total_size(sizeof(u32));
}

/*
 * The EVENT. On an armed PE it names the RECOVER the detection started
 * (auto.c), whose OP_DONE waits for this delivery (event.c).
 */
void pcierr_nl_event(const struct pcierr_event_info *ev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(pcierr_nl_event_size(), GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pcierr_family, 0, PCIERR_CMD_EVENT);
	if (!hdr ||
	    nla_put_string(msg, PCIERR_A_PE, ev->pe) ||
	    nla_put_u64_64bit(msg, PCIERR_A_PE_ID, ev->pe_id, PCIERR_A_PAD) ||
	    nla_put_string(msg, PCIERR_A_DEVICE, ev->device) ||
	    nla_put_u32(msg, PCIERR_A_STATE, pcierr_channel_state(ev->state)) ||
	    nla_put_u32(msg, PCIERR_A_TIME_UNAVAIL_MS, ev->time_unavail_ms) ||
	    nla_put_u32(msg, PCIERR_A_SOURCE, ev->source) ||
	    nla_put_u64_64bit(msg, PCIERR_A_SEQ, ev->seq, PCIERR_A_PAD) ||
	    nla_put_u64_64bit(msg, PCIERR_A_TIMESTAMP_NS, ev->timestamp_ns,
			      PCIERR_A_PAD) ||
	    nla_put_u32(msg, PCIERR_A_ERROR_GEN, ev->error_gen) ||
	    (ev->auto_op_id &&
	     nla_put_u64_64bit(msg, PCIERR_A_AUTO_OP_ID, ev->auto_op_id,
			       PCIERR_A_PAD))) {
		/* Lost: a listener finds an armed RECOVER in GET_PE. */
		nlmsg_free(msg);
		return;
	}
	pcierr_platform_fill_event(msg, ev);
	genlmsg_end(msg, hdr);
	down_read(&pcierr_nl_sem);
	if (pcierr_nl_up)
		genlmsg_multicast(&pcierr_family, msg, 0, 0, GFP_KERNEL);
	else
		nlmsg_free(msg);
	up_read(&pcierr_nl_sem);
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
	size_t size = NLMSG_GOODSIZE + op->nres * 64;
	struct nlattr *nest, *entry;
	struct sk_buff *msg;
	unsigned int i;
	void *hdr;

	for (i = 0; i < op->nsteps; i++)
		size += 64 + op->step_nres[i] * 64;
	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pcierr_family, 0, PCIERR_CMD_OP_DONE);
	if (!hdr ||
	    nla_put_u64_64bit(msg, PCIERR_A_OP_ID, op->id, PCIERR_A_PAD) ||
	    nla_put_u32(msg, PCIERR_A_OP, op->cmd) ||
	    nla_put_string(msg, PCIERR_A_PE, op->pe->name) ||
	    nla_put_u64_64bit(msg, PCIERR_A_PE_ID, op->pe_id, PCIERR_A_PAD))
		goto nospace;
	if (op->cmd == PCIERR_CMD_REPORT &&
	    (nla_put_u32(msg, PCIERR_A_STEP, op->step) ||
	     nla_put_u32(msg, PCIERR_A_RESULT,
			 pcierr_nl_result(op->merged))))
		goto nospace;
	if (pcierr_nl_has_steps(op->cmd) &&
	    pcierr_fill_steps(msg, op->stop, op->steps, op->nsteps,
			      op->step_res, op->step_nres))
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
					pcierr_nl_result(op->res[i].answer)))
				goto nospace;
			nla_nest_end(msg, entry);
		}
		nla_nest_end(msg, nest);
	}
	if (nla_put_u64_64bit(msg, PCIERR_A_DURATION_NS, op->duration_ns,
			      PCIERR_A_PAD) ||
	    nla_put_u64_64bit(msg, PCIERR_A_START_NS, op->start_ns,
			      PCIERR_A_PAD) ||
	    nla_put_u32(msg, PCIERR_A_ERRNO, -op->err) ||
	    nla_put_u32(msg, PCIERR_A_PE_STATE, op->pe_state))
		goto nospace;
	pcierr_platform_fill_op(msg, op);
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
	ret = pcierr_auto_init();
	if (ret) {
		genl_unregister_family(&pcierr_family);
		return ret;
	}
	ret = pcierr_owner_init();
	if (ret) {
		pcierr_auto_exit();
		genl_unregister_family(&pcierr_family);
		return ret;
	}
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
	pcierr_owner_exit();
	pcierr_auto_exit();
	genl_unregister_family(&pcierr_family);
}

/*
 * No MODULE_ALIAS_GENL_FAMILY() (review D24): resolving the family must not
 * let any local user load the module, which walks every PCI device at
 * load. It is loaded by root: modules-load.d/pcierr.conf at boot, modprobe.
 */
