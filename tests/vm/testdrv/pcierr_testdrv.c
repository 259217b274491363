// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr_testdrv - PCI drivers for the pcierr VM test bed.
 *
 * Four drivers in one module:
 *
 *   pcierr_test          binds QEMU's pci-testdev (1b36:0005) and has PCI
 *                        error recovery callbacks whose behaviour is set at
 *                        run time, and which records every call in order.
 *   pcierr_test_unaware  binds QEMU's edu device (1234:11e8) and has no
 *                        err_handler at all (a driver that knows nothing of
 *                        error recovery).
 *   pcierr_ipr           profiles of the seeds' two drivers QEMU has no
 *   pcierr_ixgb          model of, with the callback sets the 2005 patches
 *                        gave them and the same answers (error_detected:
 *                        need_reset, slot_reset: recovered, the defaults):
 *                        pcierr_ipr has error_detected and slot_reset only,
 *                        pcierr_ixgb error_detected, slot_reset and resume.
 *                        Their sets are fixed (no "handlers" attribute).
 *                        They match no device by id: bind a pci-testdev by
 *                        driver_override (echo pcierr_ipr > .../driver_override,
 *                        unbind, echo ADDR > /sys/bus/pci/drivers_probe).
 *                        The per-device attributes below are theirs too.
 *
 * All enable the device, map BAR0 (when it is a memory BAR) and save the
 * config space in probe; remove undoes all of it.
 *
 * Run-time control of pcierr_test (also in tests/vm/README.md):
 *
 * Per device, in /sys/bus/pci/devices/<addr>/ while pcierr_test is bound:
 *
 *   result_error_detected  rw  what error_detected() returns
 *   result_mmio_enabled    rw  what mmio_enabled() returns
 *   result_slot_reset      rw  what slot_reset() returns
 *        one of: none can_recover need_reset disconnect recovered
 *        defaults: need_reset, recovered, recovered
 *   delay_error_detected   rw  milliseconds the callback sleeps before it
 *   delay_mmio_enabled         returns (0 .. 60000, default 0), or "hang":
 *   delay_slot_reset           the callback never returns until released
 *   delay_resume               (release, config_reset, or the module's
 *                              unload; it waits in TASK_IDLE, so the hung
 *                              task detector stays quiet)
 *   release                w   any write: a hanging callback of this
 *                              device returns (with its configured answer)
 *   delay_remove           rw  the same for the driver's remove(): ms it
 *                              sleeps first, or "hang" (released by the
 *                              driver's release_all, below: this device's
 *                              files are gone while remove() runs)
 *   calls                  r   the calls so far, in order, space separated
 *                              on one line, each logged when it returns:
 *                              "error_detected(frozen)=need_reset
 *                              slot_reset=recovered resume"; empty if none.
 *                          w   any write clears the log
 *   running                r   the callback running now, or "-"
 *   slot_reset_state       r   the channel state slot_reset() last saw
 *                              (normal, frozen, perm_failure), or "-"
 *                              (docs/kernels.md: 6.12's err.c sets it
 *                              back to normal before slot_reset)
 *   config_reset           w   any write restores the defaults (results,
 *                              delays) and clears the log
 *
 *   storm                  w   N (1 .. 100000): report N failures of this
 *                              device to pcierr_shim with
 *                              pcierr_report_failure(frozen, source
 *                              DRIVER), all from atomic context (a
 *                              spinlock held, interrupts off)
 *   storm_irq              w   N (1 .. 100000): the same N reports from
 *                              a hard interrupt: an hrtimer (HARD mode)
 *                              reports up to 250 an expiry, every 20 us,
 *                              until N are done; the write returns then
 *                              (-EXDEV if a report ran outside hard IRQ
 *                              context, -ETIMEDOUT after 30 s)
 *   report_upstream        w   N (1 .. 8): report one failure (frozen,
 *                              source DRIVER) of the Nth bridge above this
 *                              device, as a port driver would: the shim
 *                              freezes the PE that bridge heads
 *   fail_in_mmio_enabled   rw  0 (default) or 1: mmio_enabled() first
 *                              reports a failure of this device
 *                              (pcierr_report_failure(frozen, source
 *                              DRIVER)), as a driver whose diagnostics
 *                              find the device broken again, then answers
 *   check                  w   a 32-bit value: pcierr_check_value() on it,
 *                              as if a read from the device returned it
 *   io                     r   I/O with the device (pcierr_test only):
 *                              resumes it if runtime suspended, selects
 *                              QEMU pci-testdev's first MMIO test in BAR0,
 *                              reads its name, writes its data byte three
 *                              times to its offset and reads the count
 *                              back: "mmio-no-eventfd 3" when both ways
 *                              work; then lets it autosuspend again
 *   runtime_pm             r   "suspends N resumes M": the driver's
 *                              runtime PM callbacks so far. pcierr_test
 *                              supports runtime PM (autosuspend, delay
 *                              1000 ms); the PCI core forbids it until
 *                              power/control is set to auto
 *   check_result           r   what the last check returned (0 or 1; a
 *                              negative errno if it failed; -61, ENODATA,
 *                              before the first)
 *        storm and check resolve the shim's API with symbol_get() at each
 *        write, so that this module does not depend on pcierr_shim (which
 *        can be unloaded and loaded again while it is bound); they fail
 *        with ENODEV while pcierr_shim is not loaded.
 *
 * For the driver, in /sys/bus/pci/drivers/pcierr_test/:
 *
 *   handlers               rw  which callbacks the driver has: a comma
 *                              separated subset of error_detected,
 *                              mmio_enabled,slot_reset,resume; "all" (the
 *                              default) for all four; "-" for no
 *                              err_handler at all. The driver's err_handler
 *                              pointer is switched among const tables.
 *   release_all            w   any write: every hanging callback,
 *                              remove() and probe() returns
 *   delay_probe            rw  ms pcierr_test's probe() sleeps before it
 *                              sets a device up (0 .. 60000, default 0),
 *                              or "hang": every probe waits until
 *                              release_all (a card whose firmware does not
 *                              answer, as a RESCAN may meet)
 *
 * The presence of callbacks is a property of the driver (as in the kernel,
 * where err_handler belongs to struct pci_driver), so it applies to every
 * device bound to pcierr_test at once.
 */

#include <linux/ctype.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/wait.h>

#include "pcierr.h"

#define TESTDRV_LOG_MAX		2048
#define TESTDRV_DELAY_MAX_MS	60000
#define TESTDRV_STORM_MAX	100000
/* delay_<cb> = "hang": the callback waits until it is released */
#define TESTDRV_DELAY_HANG	UINT_MAX

enum testdrv_cb {
	CB_ERROR_DETECTED,
	CB_MMIO_ENABLED,
	CB_SLOT_RESET,
	CB_RESUME,
	CB_COUNT
};

static const char * const cb_names[CB_COUNT] = {
	[CB_ERROR_DETECTED]	= "error_detected",
	[CB_MMIO_ENABLED]	= "mmio_enabled",
	[CB_SLOT_RESET]		= "slot_reset",
	[CB_RESUME]		= "resume",
};

/* The answers a callback can be told to give, by name */
enum testdrv_result {
	RES_NONE,
	RES_CAN_RECOVER,
	RES_NEED_RESET,
	RES_DISCONNECT,
	RES_RECOVERED,
	RES_COUNT
};

static const char * const res_names[RES_COUNT] = {
	[RES_NONE]		= "none",
	[RES_CAN_RECOVER]	= "can_recover",
	[RES_NEED_RESET]	= "need_reset",
	[RES_DISCONNECT]	= "disconnect",
	[RES_RECOVERED]		= "recovered",
};

static const pci_ers_result_t res_values[RES_COUNT] = {
	[RES_NONE]		= PCI_ERS_RESULT_NONE,
	[RES_CAN_RECOVER]	= PCI_ERS_RESULT_CAN_RECOVER,
	[RES_NEED_RESET]	= PCI_ERS_RESULT_NEED_RESET,
	[RES_DISCONNECT]	= PCI_ERS_RESULT_DISCONNECT,
	[RES_RECOVERED]		= PCI_ERS_RESULT_RECOVERED,
};

struct testdrv_dev {
	struct pci_dev *pdev;
	void __iomem *bar0;
	struct mutex lock;		/* protects everything below */
	enum testdrv_result result[CB_COUNT];	/* CB_RESUME unused */
	unsigned int delay_ms[CB_COUNT];
	int current_cb;			/* -1: none */
	int slot_reset_state;		/* pci_channel_state_t, or -1 */
	size_t log_len;
	bool log_full;
	char log[TESTDRV_LOG_MAX];
	int check_result;		/* the last check's return value */
	spinlock_t storm_lock;		/* held during a storm: atomic context */
	unsigned int release_gen;	/* bumped by release: hangs end */
	unsigned int delay_remove_ms;	/* remove()'s delay, or HANG */
	bool fail_in_mmio_enabled;	/* mmio_enabled() reports a failure */
	bool rpm;			/* runtime PM: pcierr_test only */
	atomic_t rpm_suspends;
	atomic_t rpm_resumes;
};

/* hanging callbacks wait here; testdrv_unloading releases them all */
static DECLARE_WAIT_QUEUE_HEAD(testdrv_hang_wq);
static bool testdrv_unloading;
static unsigned int testdrv_release_all_gen;	/* the driver's release */

static void testdrv_release_hangs(struct testdrv_dev *td)
{
	WRITE_ONCE(td->release_gen, td->release_gen + 1);	/* under td->lock */
	wake_up_all(&testdrv_hang_wq);
}

/* the wait's condition: runs in TASK_IDLE, so it takes no lock */
static bool testdrv_hang_over(struct testdrv_dev *td, unsigned int gen,
			      unsigned int all_gen)
{
	return READ_ONCE(td->release_gen) != gen ||
	       READ_ONCE(testdrv_release_all_gen) != all_gen ||
	       READ_ONCE(testdrv_unloading);
}

/* sleep for a delay, or hang until released; td->lock not held */
static void testdrv_delay(struct testdrv_dev *td, const char *what,
			  unsigned int delay, unsigned int gen)
{
	unsigned int all_gen = READ_ONCE(testdrv_release_all_gen);

	if (delay == TESTDRV_DELAY_HANG) {
		dev_info(&td->pdev->dev, "%s hangs until released\n", what);
		wait_event_idle(testdrv_hang_wq,
				testdrv_hang_over(td, gen, all_gen));
		dev_info(&td->pdev->dev, "%s released\n", what);
	} else if (delay) {
		msleep(delay);
	}
}

static void testdrv_defaults(struct testdrv_dev *td)
{
	int i;

	td->result[CB_ERROR_DETECTED] = RES_NEED_RESET;
	td->result[CB_MMIO_ENABLED] = RES_RECOVERED;
	td->result[CB_SLOT_RESET] = RES_RECOVERED;
	td->result[CB_RESUME] = RES_NONE;
	for (i = 0; i < CB_COUNT; i++)
		td->delay_ms[i] = 0;
	td->delay_remove_ms = 0;
	td->fail_in_mmio_enabled = false;
	td->log_len = 0;
	td->log_full = false;
	td->log[0] = '\0';
}

/* Append one entry to the call log. */
static __printf(2, 3) void testdrv_log(struct testdrv_dev *td,
				       const char *fmt, ...)
{
	char entry[64];
	va_list args;
	size_t room;
	int n;

	va_start(args, fmt);
	n = vscnprintf(entry, sizeof(entry), fmt, args);
	va_end(args);

	mutex_lock(&td->lock);
	room = sizeof(td->log) - td->log_len;
	if (td->log_full)
		goto out;
	/* keep room for " ..." so that a full log says so */
	if (n + 1 + 5 > room) {
		td->log_len += scnprintf(td->log + td->log_len, room, " ...");
		td->log_full = true;
		goto out;
	}
	td->log_len += scnprintf(td->log + td->log_len, room, "%s%s",
				 td->log_len ? " " : "", entry);
out:
	mutex_unlock(&td->lock);
}

/*
 * Common part of every callback: mark it running, sleep for its delay
 * (without holding the lock, so that sysfs stays readable), and return the
 * configured answer as it is when the delay is over.
 */
static enum testdrv_result testdrv_enter(struct testdrv_dev *td,
					 enum testdrv_cb cb)
{
	enum testdrv_result result;
	unsigned int delay, gen;

	mutex_lock(&td->lock);
	td->current_cb = cb;
	delay = td->delay_ms[cb];
	gen = td->release_gen;
	mutex_unlock(&td->lock);

	testdrv_delay(td, cb_names[cb], delay, gen);

	mutex_lock(&td->lock);
	td->current_cb = -1;
	result = td->result[cb];
	mutex_unlock(&td->lock);
	return result;
}

static const char *channel_state_name(pci_channel_state_t state)
{
	if (state == pci_channel_io_normal)
		return "normal";
	if (state == pci_channel_io_frozen)
		return "frozen";
	if (state == pci_channel_io_perm_failure)
		return "perm_failure";
	return "unknown";
}

static pci_ers_result_t testdrv_error_detected(struct pci_dev *pdev,
					       pci_channel_state_t state)
{
	struct testdrv_dev *td = pci_get_drvdata(pdev);
	enum testdrv_result r;

	r = testdrv_enter(td, CB_ERROR_DETECTED);
	testdrv_log(td, "error_detected(%s)=%s", channel_state_name(state),
		    res_names[r]);
	dev_info(&pdev->dev, "error_detected(%s) = %s\n",
		 channel_state_name(state), res_names[r]);
	return res_values[r];
}

static pci_ers_result_t testdrv_mmio_enabled(struct pci_dev *pdev)
{
	struct testdrv_dev *td = pci_get_drvdata(pdev);
	typeof(&pcierr_report_failure) report;
	enum testdrv_result r;
	bool fail;
	int ret;

	mutex_lock(&td->lock);
	fail = td->fail_in_mmio_enabled;
	mutex_unlock(&td->lock);
	if (fail) {
		report = symbol_get(pcierr_report_failure);
		ret = report ? report(pdev, pci_channel_io_frozen, 0,
				      PCIERR_SOURCE_DRIVER) : -ENODEV;
		if (report)
			symbol_put(pcierr_report_failure);
		dev_info(&pdev->dev, "mmio_enabled: failure reported: %d\n",
			 ret);
	}
	r = testdrv_enter(td, CB_MMIO_ENABLED);
	testdrv_log(td, "mmio_enabled=%s", res_names[r]);
	dev_info(&pdev->dev, "mmio_enabled = %s\n", res_names[r]);
	return res_values[r];
}

static pci_ers_result_t testdrv_slot_reset(struct pci_dev *pdev)
{
	struct testdrv_dev *td = pci_get_drvdata(pdev);
	enum testdrv_result r;

	mutex_lock(&td->lock);
	td->slot_reset_state = (__force int)READ_ONCE(pdev->error_state);
	mutex_unlock(&td->lock);
	r = testdrv_enter(td, CB_SLOT_RESET);
	testdrv_log(td, "slot_reset=%s", res_names[r]);
	dev_info(&pdev->dev, "slot_reset = %s\n", res_names[r]);
	return res_values[r];
}

static void testdrv_resume(struct pci_dev *pdev)
{
	struct testdrv_dev *td = pci_get_drvdata(pdev);

	testdrv_enter(td, CB_RESUME);
	testdrv_log(td, "resume");
	dev_info(&pdev->dev, "resume\n");
}

/*
 * Every combination of present callbacks, bit CB_x set = callback x
 * present. The driver's err_handler points at one of these, or is NULL.
 */
#define ED(m)	(((m) & BIT(CB_ERROR_DETECTED)) ? testdrv_error_detected : NULL)
#define ME(m)	(((m) & BIT(CB_MMIO_ENABLED)) ? testdrv_mmio_enabled : NULL)
#define SR(m)	(((m) & BIT(CB_SLOT_RESET)) ? testdrv_slot_reset : NULL)
#define RE(m)	(((m) & BIT(CB_RESUME)) ? testdrv_resume : NULL)
#define HANDLERS(m) [m] = { \
	.error_detected = ED(m), .mmio_enabled = ME(m), \
	.slot_reset = SR(m), .resume = RE(m) }

#define HANDLERS_ALL	(BIT(CB_COUNT) - 1)

static const struct pci_error_handlers testdrv_handlers[BIT(CB_COUNT)] = {
	HANDLERS(0), HANDLERS(1), HANDLERS(2), HANDLERS(3),
	HANDLERS(4), HANDLERS(5), HANDLERS(6), HANDLERS(7),
	HANDLERS(8), HANDLERS(9), HANDLERS(10), HANDLERS(11),
	HANDLERS(12), HANDLERS(13), HANDLERS(14), HANDLERS(15),
};

/* Per-device attributes */

static struct testdrv_dev *to_td(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static int parse_result(const char *buf)
{
	int i;

	for (i = 0; i < RES_COUNT; i++)
		if (sysfs_streq(buf, res_names[i]))
			return i;
	return -EINVAL;
}

static ssize_t result_show(struct device *dev, char *buf, enum testdrv_cb cb)
{
	struct testdrv_dev *td = to_td(dev);
	enum testdrv_result r;

	mutex_lock(&td->lock);
	r = td->result[cb];
	mutex_unlock(&td->lock);
	return sysfs_emit(buf, "%s\n", res_names[r]);
}

static ssize_t result_store(struct device *dev, const char *buf, size_t count,
			    enum testdrv_cb cb)
{
	struct testdrv_dev *td = to_td(dev);
	int r = parse_result(buf);

	if (r < 0)
		return r;
	mutex_lock(&td->lock);
	td->result[cb] = r;
	mutex_unlock(&td->lock);
	return count;
}

static ssize_t delay_show(struct device *dev, char *buf, enum testdrv_cb cb)
{
	struct testdrv_dev *td = to_td(dev);
	unsigned int d;

	mutex_lock(&td->lock);
	d = td->delay_ms[cb];
	mutex_unlock(&td->lock);
	if (d == TESTDRV_DELAY_HANG)
		return sysfs_emit(buf, "hang\n");
	return sysfs_emit(buf, "%u\n", d);
}

static int testdrv_parse_delay(const char *buf, unsigned int *d)
{
	int ret;

	if (sysfs_streq(buf, "hang")) {
		*d = TESTDRV_DELAY_HANG;
		return 0;
	}
	ret = kstrtouint(buf, 0, d);
	if (ret)
		return ret;
	return *d > TESTDRV_DELAY_MAX_MS ? -ERANGE : 0;
}

static ssize_t delay_store(struct device *dev, const char *buf, size_t count,
			   enum testdrv_cb cb)
{
	struct testdrv_dev *td = to_td(dev);
	unsigned int d;
	int ret;

	ret = testdrv_parse_delay(buf, &d);
	if (ret)
		return ret;
	mutex_lock(&td->lock);
	td->delay_ms[cb] = d;
	mutex_unlock(&td->lock);
	return count;
}

static ssize_t delay_remove_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct testdrv_dev *td = to_td(dev);
	unsigned int d;

	mutex_lock(&td->lock);
	d = td->delay_remove_ms;
	mutex_unlock(&td->lock);
	if (d == TESTDRV_DELAY_HANG)
		return sysfs_emit(buf, "hang\n");
	return sysfs_emit(buf, "%u\n", d);
}

static ssize_t delay_remove_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct testdrv_dev *td = to_td(dev);
	unsigned int d;
	int ret;

	ret = testdrv_parse_delay(buf, &d);
	if (ret)
		return ret;
	mutex_lock(&td->lock);
	td->delay_remove_ms = d;
	mutex_unlock(&td->lock);
	return count;
}
static DEVICE_ATTR_RW(delay_remove);

#define TESTDRV_RESULT_ATTR(name, cb)					\
static ssize_t result_##name##_show(struct device *dev,		\
				    struct device_attribute *attr,	\
				    char *buf)				\
{									\
	return result_show(dev, buf, cb);				\
}									\
static ssize_t result_##name##_store(struct device *dev,		\
				     struct device_attribute *attr,	\
				     const char *buf, size_t count)	\
{									\
	return result_store(dev, buf, count, cb);			\
}									\
static DEVICE_ATTR_RW(result_##name)

#define TESTDRV_DELAY_ATTR(name, cb)					\
static ssize_t delay_##name##_show(struct device *dev,			\
				   struct device_attribute *attr,	\
				   char *buf)				\
{									\
	return delay_show(dev, buf, cb);				\
}									\
static ssize_t delay_##name##_store(struct device *dev,		\
				    struct device_attribute *attr,	\
				    const char *buf, size_t count)	\
{									\
	return delay_store(dev, buf, count, cb);			\
}									\
static DEVICE_ATTR_RW(delay_##name)

TESTDRV_RESULT_ATTR(error_detected, CB_ERROR_DETECTED);
TESTDRV_RESULT_ATTR(mmio_enabled, CB_MMIO_ENABLED);
TESTDRV_RESULT_ATTR(slot_reset, CB_SLOT_RESET);
TESTDRV_DELAY_ATTR(error_detected, CB_ERROR_DETECTED);
TESTDRV_DELAY_ATTR(mmio_enabled, CB_MMIO_ENABLED);
TESTDRV_DELAY_ATTR(slot_reset, CB_SLOT_RESET);
TESTDRV_DELAY_ATTR(resume, CB_RESUME);

static ssize_t calls_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct testdrv_dev *td = to_td(dev);
	ssize_t n;

	mutex_lock(&td->lock);
	n = sysfs_emit(buf, "%s\n", td->log);
	mutex_unlock(&td->lock);
	return n;
}

static ssize_t calls_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct testdrv_dev *td = to_td(dev);

	mutex_lock(&td->lock);
	td->log_len = 0;
	td->log_full = false;
	td->log[0] = '\0';
	mutex_unlock(&td->lock);
	return count;
}
static DEVICE_ATTR_RW(calls);

static ssize_t running_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct testdrv_dev *td = to_td(dev);
	int cb;

	mutex_lock(&td->lock);
	cb = td->current_cb;
	mutex_unlock(&td->lock);
	return sysfs_emit(buf, "%s\n", cb < 0 ? "-" : cb_names[cb]);
}
static DEVICE_ATTR_RO(running);

static ssize_t slot_reset_state_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct testdrv_dev *td = to_td(dev);
	int st;

	mutex_lock(&td->lock);
	st = td->slot_reset_state;
	mutex_unlock(&td->lock);
	return sysfs_emit(buf, "%s\n", st < 0 ? "-" :
			  channel_state_name((__force pci_channel_state_t)st));
}
static DEVICE_ATTR_RO(slot_reset_state);

static ssize_t config_reset_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct testdrv_dev *td = to_td(dev);

	mutex_lock(&td->lock);
	testdrv_defaults(td);
	testdrv_release_hangs(td);
	mutex_unlock(&td->lock);
	return count;
}
static DEVICE_ATTR_WO(config_reset);

static ssize_t release_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	struct testdrv_dev *td = to_td(dev);

	mutex_lock(&td->lock);
	testdrv_release_hangs(td);
	mutex_unlock(&td->lock);
	return count;
}
static DEVICE_ATTR_WO(release);

/*
 * The shim's API, resolved at each use: no module dependency, and the shim
 * can be unloaded whenever no storm or check is running.
 */
/* A storm's count: 1 .. TESTDRV_STORM_MAX */
static int testdrv_storm_count(const char *buf, unsigned int *n)
{
	int ret = kstrtouint(buf, 0, n);

	if (ret)
		return ret;
	return !*n || *n > TESTDRV_STORM_MAX ? -ERANGE : 0;
}

/* The reports of a storm, in whatever context the caller is in */
struct testdrv_storm {
	struct pci_dev *pdev;
	typeof(&pcierr_report_failure) report;
	unsigned int failed;
	int first_err;
};

static void testdrv_storm_report(struct testdrv_storm *st, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = st->report(st->pdev, pci_channel_io_frozen, 0,
				 PCIERR_SOURCE_DRIVER);
		if (ret) {
			st->failed++;
			if (!st->first_err)
				st->first_err = ret;
		}
	}
}

static ssize_t storm_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct testdrv_dev *td = to_td(dev);
	struct testdrv_storm st = { .pdev = td->pdev };
	unsigned long flags;
	unsigned int n;
	int ret;

	ret = testdrv_storm_count(buf, &n);
	if (ret)
		return ret;
	st.report = symbol_get(pcierr_report_failure);
	if (!st.report)
		return -ENODEV;

	spin_lock_irqsave(&td->storm_lock, flags);
	testdrv_storm_report(&st, n);
	spin_unlock_irqrestore(&td->storm_lock, flags);
	symbol_put(pcierr_report_failure);

	dev_info(dev, "storm: %u failures reported, %u refused\n",
		 n - st.failed, st.failed);
	return st.first_err ? st.first_err : count;
}
static DEVICE_ATTR_WO(storm);

/* storm_irq: reports from an hrtimer's expiry, a hard interrupt */
#define TESTDRV_IRQ_BATCH	250
#define TESTDRV_IRQ_GAP_NS	(20 * NSEC_PER_USEC)

struct testdrv_irq_storm {
	struct hrtimer timer;
	struct testdrv_storm reports;
	unsigned int left, outside_irq;
	struct completion done;
};

static enum hrtimer_restart testdrv_irq_storm_fire(struct hrtimer *t)
{
	struct testdrv_irq_storm *st =
		container_of(t, struct testdrv_irq_storm, timer);
	unsigned int n = min_t(unsigned int, st->left, TESTDRV_IRQ_BATCH);

	if (!in_hardirq())
		st->outside_irq += n;
	testdrv_storm_report(&st->reports, n);
	st->left -= n;
	if (!st->left) {
		complete(&st->done);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(t, ns_to_ktime(TESTDRV_IRQ_GAP_NS));
	return HRTIMER_RESTART;
}

static ssize_t storm_irq_store(struct device *dev,
			       struct device_attribute *attr, const char *buf,
			       size_t count)
{
	struct testdrv_dev *td = to_td(dev);
	struct testdrv_irq_storm irq = { .reports.pdev = td->pdev };
	unsigned int n;
	int ret;

	ret = testdrv_storm_count(buf, &n);
	if (ret)
		return ret;
	irq.reports.report = symbol_get(pcierr_report_failure);
	if (!irq.reports.report)
		return -ENODEV;
	irq.left = n;
	init_completion(&irq.done);
	hrtimer_init_on_stack(&irq.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	irq.timer.function = testdrv_irq_storm_fire;
	hrtimer_start(&irq.timer, ns_to_ktime(TESTDRV_IRQ_GAP_NS),
		      HRTIMER_MODE_REL_HARD);
	if (!wait_for_completion_timeout(&irq.done, 30 * HZ))
		ret = -ETIMEDOUT;
	/* waits for an expiry still running: irq is ours again after it */
	hrtimer_cancel(&irq.timer);
	destroy_hrtimer_on_stack(&irq.timer);
	symbol_put(pcierr_report_failure);

	dev_info(dev, "storm_irq: %u failures reported from hard interrupts, %u refused, %u outside one, %u not sent\n",
		 n - irq.left - irq.reports.failed, irq.reports.failed,
		 irq.outside_irq, irq.left);
	if (ret)
		return ret;
	if (irq.outside_irq)
		return -EXDEV;
	return irq.reports.first_err ? irq.reports.first_err : count;
}
static DEVICE_ATTR_WO(storm_irq);

static ssize_t report_upstream_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	struct testdrv_dev *td = to_td(dev);
	typeof(&pcierr_report_failure) report;
	struct pci_dev *bridge = td->pdev;
	unsigned int n, i;
	int ret;

	ret = kstrtouint(buf, 0, &n);
	if (ret)
		return ret;
	if (!n || n > 8)
		return -ERANGE;
	for (i = 0; i < n && bridge; i++)
		bridge = pci_upstream_bridge(bridge);
	if (!bridge)
		return -ENODEV;
	report = symbol_get(pcierr_report_failure);
	if (!report)
		return -ENODEV;
	ret = report(bridge, pci_channel_io_frozen, 0, PCIERR_SOURCE_DRIVER);
	symbol_put(pcierr_report_failure);
	dev_info(dev, "failure of %s reported: %d\n", pci_name(bridge), ret);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(report_upstream);

static ssize_t fail_in_mmio_enabled_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	struct testdrv_dev *td = to_td(dev);
	bool v;

	mutex_lock(&td->lock);
	v = td->fail_in_mmio_enabled;
	mutex_unlock(&td->lock);
	return sysfs_emit(buf, "%d\n", v);
}

static ssize_t fail_in_mmio_enabled_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t count)
{
	struct testdrv_dev *td = to_td(dev);
	bool v;
	int ret;

	ret = kstrtobool(buf, &v);
	if (ret)
		return ret;
	mutex_lock(&td->lock);
	td->fail_in_mmio_enabled = v;
	mutex_unlock(&td->lock);
	return count;
}
static DEVICE_ATTR_RW(fail_in_mmio_enabled);

static ssize_t check_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct testdrv_dev *td = to_td(dev);
	typeof(&pcierr_check_value) check;
	u32 val;
	int ret;

	ret = kstrtou32(buf, 0, &val);
	if (ret)
		return ret;
	check = symbol_get(pcierr_check_value);
	if (!check)
		return -ENODEV;
	ret = check(td->pdev, val);
	symbol_put(pcierr_check_value);

	mutex_lock(&td->lock);
	td->check_result = ret;
	mutex_unlock(&td->lock);
	dev_info(dev, "check(0x%08x) = %d\n", val, ret);
	return count;
}
static DEVICE_ATTR_WO(check);

/* QEMU pci-testdev's test header in BAR0 (hw/misc/pci-testdev.c) */
#define TD_HDR_TEST	0	/* write: select a test (its count = 0) */
#define TD_HDR_OFFSET	4	/* le32: where the test's writes go */
#define TD_HDR_DATA	8	/* the byte those writes carry */
#define TD_HDR_COUNT	12	/* le32: the writes seen so far */
#define TD_HDR_NAME	16	/* the test's name, NUL-terminated */
#define TD_IO_WRITES	3

/* The device answers one byte per access. */
static u32 td_read32(void __iomem *base, unsigned int off)
{
	u32 v = 0;
	int i;

	for (i = 3; i >= 0; i--)
		v = v << 8 | ioread8(base + off + i);
	return v;
}

static ssize_t io_show(struct device *dev, struct device_attribute *attr,
		       char *buf)
{
	struct testdrv_dev *td = to_td(dev);
	void __iomem *base = td->bar0;
	char name[32];
	u32 off, count;
	unsigned int i;
	u8 data;
	int ret;

	if (!td->rpm || !base)
		return -EOPNOTSUPP;
	ret = pm_runtime_resume_and_get(dev);
	if (ret < 0)
		return ret;
	mutex_lock(&td->lock);
	iowrite8(0, base + TD_HDR_TEST);
	for (i = 0; i < sizeof(name) - 1; i++) {
		name[i] = ioread8(base + TD_HDR_NAME + i);
		if (!name[i] || !isprint(name[i]))
			break;
	}
	name[i] = 0;
	off = td_read32(base, TD_HDR_OFFSET);
	data = ioread8(base + TD_HDR_DATA);
	if (off >= TD_HDR_NAME &&
	    off < pci_resource_len(td->pdev, 0))
		for (i = 0; i < TD_IO_WRITES; i++)
			iowrite8(data, base + off);
	count = td_read32(base, TD_HDR_COUNT);
	mutex_unlock(&td->lock);
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
	return sysfs_emit(buf, "%s %u\n", name, count);
}
static DEVICE_ATTR_RO(io);

static ssize_t runtime_pm_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct testdrv_dev *td = to_td(dev);

	return sysfs_emit(buf, "suspends %d resumes %d\n",
			  atomic_read(&td->rpm_suspends),
			  atomic_read(&td->rpm_resumes));
}
static DEVICE_ATTR_RO(runtime_pm);

static ssize_t check_result_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct testdrv_dev *td = to_td(dev);
	int r;

	mutex_lock(&td->lock);
	r = td->check_result;
	mutex_unlock(&td->lock);
	return sysfs_emit(buf, "%d\n", r);
}
static DEVICE_ATTR_RO(check_result);

static struct attribute *testdrv_dev_attrs[] = {
	&dev_attr_result_error_detected.attr,
	&dev_attr_result_mmio_enabled.attr,
	&dev_attr_result_slot_reset.attr,
	&dev_attr_delay_error_detected.attr,
	&dev_attr_delay_mmio_enabled.attr,
	&dev_attr_delay_slot_reset.attr,
	&dev_attr_delay_resume.attr,
	&dev_attr_calls.attr,
	&dev_attr_running.attr,
	&dev_attr_slot_reset_state.attr,
	&dev_attr_config_reset.attr,
	&dev_attr_release.attr,
	&dev_attr_delay_remove.attr,
	&dev_attr_storm.attr,
	&dev_attr_storm_irq.attr,
	&dev_attr_report_upstream.attr,
	&dev_attr_fail_in_mmio_enabled.attr,
	&dev_attr_check.attr,
	&dev_attr_check_result.attr,
	&dev_attr_io.attr,
	&dev_attr_runtime_pm.attr,
	NULL
};
ATTRIBUTE_GROUPS(testdrv_dev);

/* Driver attribute: which callbacks exist */

static struct pci_driver testdrv_driver;

static ssize_t handlers_show(struct device_driver *drv, char *buf)
{
	const struct pci_error_handlers *eh = READ_ONCE(testdrv_driver.err_handler);
	unsigned int mask;
	ssize_t n = 0;
	int i;

	if (!eh)
		return sysfs_emit(buf, "-\n");
	mask = eh - testdrv_handlers;
	for (i = 0; i < CB_COUNT; i++)
		if (mask & BIT(i))
			n += sysfs_emit_at(buf, n, "%s%s", n ? "," : "",
					   cb_names[i]);
	n += sysfs_emit_at(buf, n, "\n");
	return n;
}

static ssize_t handlers_store(struct device_driver *drv, const char *buf,
			      size_t count)
{
	const struct pci_error_handlers *eh;
	unsigned int mask = 0;
	char *copy, *s, *tok;
	int i;

	if (sysfs_streq(buf, "-") || sysfs_streq(buf, "none")) {
		WRITE_ONCE(testdrv_driver.err_handler, NULL);
		return count;
	}
	if (sysfs_streq(buf, "all")) {
		mask = HANDLERS_ALL;
	} else {
		copy = kstrndup(buf, count, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		s = strim(copy);
		while ((tok = strsep(&s, ",")) != NULL) {
			for (i = 0; i < CB_COUNT; i++)
				if (!strcmp(strim(tok), cb_names[i]))
					break;
			if (i == CB_COUNT) {
				kfree(copy);
				return -EINVAL;
			}
			mask |= BIT(i);
		}
		kfree(copy);
	}
	eh = &testdrv_handlers[mask];
	WRITE_ONCE(testdrv_driver.err_handler, eh);
	return count;
}
static DRIVER_ATTR_RW(handlers);

static ssize_t release_all_store(struct device_driver *drv, const char *buf,
				 size_t count)
{
	WRITE_ONCE(testdrv_release_all_gen, testdrv_release_all_gen + 1);
	wake_up_all(&testdrv_hang_wq);
	return count;
}
static DRIVER_ATTR_WO(release_all);

/* pcierr_test's probe(): ms, or TESTDRV_DELAY_HANG */
static unsigned int testdrv_delay_probe_ms;

static ssize_t delay_probe_show(struct device_driver *drv, char *buf)
{
	unsigned int d = READ_ONCE(testdrv_delay_probe_ms);

	if (d == TESTDRV_DELAY_HANG)
		return sysfs_emit(buf, "hang\n");
	return sysfs_emit(buf, "%u\n", d);
}

static ssize_t delay_probe_store(struct device_driver *drv, const char *buf,
				 size_t count)
{
	unsigned int d;
	int ret;

	ret = testdrv_parse_delay(buf, &d);
	if (ret)
		return ret;
	WRITE_ONCE(testdrv_delay_probe_ms, d);
	return count;
}
static DRIVER_ATTR_RW(delay_probe);

/* a probe that waits: delay_probe ms, or until release_all */
static void testdrv_probe_delay(struct pci_dev *pdev)
{
	unsigned int d = READ_ONCE(testdrv_delay_probe_ms);
	unsigned int all_gen = READ_ONCE(testdrv_release_all_gen);

	if (!d || to_pci_driver(pdev->dev.driver) != &testdrv_driver)
		return;
	if (d != TESTDRV_DELAY_HANG) {
		msleep(d);
		return;
	}
	dev_info(&pdev->dev, "probe hangs until released\n");
	wait_event_idle(testdrv_hang_wq,
			READ_ONCE(testdrv_release_all_gen) != all_gen ||
			READ_ONCE(testdrv_unloading));
	dev_info(&pdev->dev, "probe released\n");
}

static struct attribute *testdrv_drv_attrs[] = {
	&driver_attr_handlers.attr,
	&driver_attr_release_all.attr,
	&driver_attr_delay_probe.attr,
	NULL
};
ATTRIBUTE_GROUPS(testdrv_drv);

/* probe and remove, shared by both drivers */

static int testdrv_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct testdrv_dev *td;
	int ret;

	testdrv_probe_delay(pdev);
	td = kzalloc(sizeof(*td), GFP_KERNEL);
	if (!td)
		return -ENOMEM;
	td->pdev = pdev;
	mutex_init(&td->lock);
	spin_lock_init(&td->storm_lock);
	td->current_cb = -1;
	td->slot_reset_state = -1;
	td->check_result = -ENODATA;
	testdrv_defaults(td);

	ret = pci_enable_device(pdev);
	if (ret)
		goto err_free;
	if (pci_resource_len(pdev, 0) &&
	    (pci_resource_flags(pdev, 0) & IORESOURCE_MEM)) {
		td->bar0 = pci_iomap(pdev, 0, 0);
		if (!td->bar0) {
			ret = -ENOMEM;
			goto err_disable;
		}
	}
	pci_save_state(pdev);
	pci_set_drvdata(pdev, td);
	/*
	 * pcierr_test supports runtime PM (the PCI core saves and restores
	 * the config space around it; QEMU's pci-testdev has no PM
	 * capability, so it stays in D0): allowed by power/control=auto.
	 */
	td->rpm = pdev->dev.driver == &testdrv_driver.driver;
	if (td->rpm) {
		pm_runtime_set_autosuspend_delay(&pdev->dev, 1000);
		pm_runtime_use_autosuspend(&pdev->dev);
		pm_runtime_put_noidle(&pdev->dev);
	}
	dev_info(&pdev->dev, "bound (%s)\n",
		 to_pci_driver(pdev->dev.driver)->name);
	return 0;

err_disable:
	pci_disable_device(pdev);
err_free:
	mutex_destroy(&td->lock);
	kfree(td);
	return ret;
}

static void testdrv_remove(struct pci_dev *pdev)
{
	struct testdrv_dev *td = pci_get_drvdata(pdev);
	unsigned int delay, gen;

	mutex_lock(&td->lock);
	delay = td->delay_remove_ms;
	gen = td->release_gen;
	mutex_unlock(&td->lock);
	testdrv_delay(td, "remove", delay, gen);

	if (td->rpm) {
		pm_runtime_get_noresume(&pdev->dev);
		pm_runtime_dont_use_autosuspend(&pdev->dev);
	}
	pci_set_drvdata(pdev, NULL);
	if (td->bar0)
		pci_iounmap(pdev, td->bar0);
	pci_disable_device(pdev);
	mutex_destroy(&td->lock);
	kfree(td);
	dev_info(&pdev->dev, "unbound\n");
}

static const struct pci_device_id testdrv_ids[] = {
	{ PCI_DEVICE(0x1b36, 0x0005) },		/* QEMU pci-testdev */
	{ }
};
MODULE_DEVICE_TABLE(pci, testdrv_ids);

/* the profiles bind only by driver_override */
static const struct pci_device_id testdrv_profile_ids[] = {
	{ }
};

static const struct pci_device_id testdrv_unaware_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },		/* QEMU edu */
	{ }
};
MODULE_DEVICE_TABLE(pci, testdrv_unaware_ids);

static int testdrv_runtime_suspend(struct device *dev)
{
	struct testdrv_dev *td = dev_get_drvdata(dev);

	atomic_inc(&td->rpm_suspends);
	return 0;
}

static int testdrv_runtime_resume(struct device *dev)
{
	struct testdrv_dev *td = dev_get_drvdata(dev);

	atomic_inc(&td->rpm_resumes);
	return 0;
}

static const struct dev_pm_ops testdrv_pm_ops = {
	RUNTIME_PM_OPS(testdrv_runtime_suspend, testdrv_runtime_resume, NULL)
};

static struct pci_driver testdrv_driver = {
	.name		= "pcierr_test",
	.id_table	= testdrv_ids,
	.probe		= testdrv_probe,
	.remove		= testdrv_remove,
	.driver.pm	= pm_ptr(&testdrv_pm_ops),
	.err_handler	= &testdrv_handlers[HANDLERS_ALL],
	.groups		= testdrv_drv_groups,
	.dev_groups	= testdrv_dev_groups,
};

static struct pci_driver testdrv_unaware_driver = {
	.name		= "pcierr_test_unaware",
	.id_table	= testdrv_unaware_ids,
	.probe		= testdrv_probe,
	.remove		= testdrv_remove,
	/* no err_handler at all */
};

/* ipr (2005): error_detected and slot_reset, no resume */
static struct pci_driver testdrv_ipr_driver = {
	.name		= "pcierr_ipr",
	.id_table	= testdrv_profile_ids,
	.probe		= testdrv_probe,
	.remove		= testdrv_remove,
	.err_handler	= &testdrv_handlers[BIT(CB_ERROR_DETECTED) |
					    BIT(CB_SLOT_RESET)],
	.dev_groups	= testdrv_dev_groups,
};

/* ixgb (2005): error_detected, slot_reset and resume */
static struct pci_driver testdrv_ixgb_driver = {
	.name		= "pcierr_ixgb",
	.id_table	= testdrv_profile_ids,
	.probe		= testdrv_probe,
	.remove		= testdrv_remove,
	.err_handler	= &testdrv_handlers[BIT(CB_ERROR_DETECTED) |
					    BIT(CB_SLOT_RESET) |
					    BIT(CB_RESUME)],
	.dev_groups	= testdrv_dev_groups,
};

static struct pci_driver * const testdrv_drivers[] = {
	&testdrv_driver,
	&testdrv_unaware_driver,
	&testdrv_ipr_driver,
	&testdrv_ixgb_driver,
};

static int __init testdrv_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(testdrv_drivers); i++) {
		ret = pci_register_driver(testdrv_drivers[i]);
		if (ret)
			goto err;
	}
	return 0;

err:
	while (--i >= 0)
		pci_unregister_driver(testdrv_drivers[i]);
	return ret;
}

static void __exit testdrv_exit(void)
{
	int i;

	/*
	 * A callback that hangs runs under the device lock, which unbinding
	 * takes: release it first, or the unload would wait for ever.
	 */
	WRITE_ONCE(testdrv_unloading, true);
	wake_up_all(&testdrv_hang_wq);
	for (i = ARRAY_SIZE(testdrv_drivers) - 1; i >= 0; i--)
		pci_unregister_driver(testdrv_drivers[i]);
}

module_init(testdrv_init);
module_exit(testdrv_exit);

MODULE_DESCRIPTION("pcierr test drivers for QEMU pci-testdev and edu, ipr and ixgb profiles");
MODULE_AUTHOR("pcierr project");
MODULE_LICENSE("GPL");
