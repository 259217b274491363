// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O a surprise removal lost (issue 25): a request that a frozen
 * device will never answer is failed before its driver's remove() waits
 * for it.
 *
 * Marking a device disconnected (hotplug.c) tells a careful driver that
 * its hardware is gone; virtio-pci's remove() then breaks the device, so
 * that no completion can come any more, "so that virtio upper layers can
 * abort any ongoing operation" (6.1 drivers/virtio/virtio_pci_common.c).
 * virtio_scsi does not: its eh_timed_out() rearms the timer of a command
 * for ever and its task management waits without bound for the device
 * (virtscsi_tmf()), so the SCSI error handler never runs and a command lost
 * in the freeze keeps sd_remove() in del_gendisk() for ever, its reader in
 * D state. Nothing below the SCSI midlayer can fail it, and only the
 * midlayer may complete a command from outside the driver once the driver
 * can no longer complete it itself.
 *
 * virtio_blk has no timeout handler at all: the same for del_gendisk() in
 * virtblk_remove().
 *
 * So, for a marked device that a virtio transport drives, before its
 * driver is detached: break the virtio device (what its remove() would do
 * first anyway), reset it if it still answers (the spec's way to stop a
 * device touching the rings and buffers; it also waits for its interrupt
 * handlers), then, for each SCSI host on it, quiesce its queues, fail the
 * commands still outstanding with DID_NO_CONNECT (the reader gets
 * -ENOLINK), and leave its devices transport-offline, so that what comes
 * next fails at once; for a disk of its own (virtio_blk), quiesce its
 * queue and end the requests in flight with an I/O error. A broken
 * virtqueue returns no buffer and its interrupt handler does nothing, so
 * the driver cannot complete those requests after this: there is no double
 * completion.
 *
 * Other drivers keep the commands they own: the shim cannot know they
 * will not complete them. They end by their own error handling
 * (megaraid_sas: its timeouts, docs/drivers.md 99-megasas-hotplug).
 *
 * SCSI and virtio may be modules that are not loaded: their symbols are
 * taken with symbol_get(), so that the shim does not pull them in. It
 * takes GPL-only symbols only (Debian's 6.1 refuses the others): the SCSI
 * host is known by its device type's name, and a command is completed as
 * scsi_done() does, through blk-mq (built in).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/blk-mq.h>
#include <linux/module.h>
#include <linux/virtio.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "internal.h"

struct pcierr_lost {
	typeof(virtio_break_device) *brk;
	typeof(virtio_reset_device) *reset;
	typeof(scsi_host_block) *block;
	typeof(scsi_host_unblock) *unblock;
	typeof(scsi_host_busy_iter) *busy_iter;
	struct request_queue *q;
	bool present;
	int failed;
};

static bool pcierr_lost_get(struct pcierr_lost *l)
{
	l->brk = symbol_get(virtio_break_device);
	l->reset = symbol_get(virtio_reset_device);
	l->block = symbol_get(scsi_host_block);
	l->unblock = symbol_get(scsi_host_unblock);
	l->busy_iter = symbol_get(scsi_host_busy_iter);
	return l->brk && l->reset && l->block && l->unblock && l->busy_iter;
}

static void pcierr_lost_put(struct pcierr_lost *l)
{
	if (l->brk)
		symbol_put(virtio_break_device);
	if (l->reset)
		symbol_put(virtio_reset_device);
	if (l->block)
		symbol_put(scsi_host_block);
	if (l->unblock)
		symbol_put(scsi_host_unblock);
	if (l->busy_iter)
		symbol_put(scsi_host_busy_iter);
}

static bool pcierr_fail_cmd(struct scsi_cmnd *cmd, void *data)
{
	struct pcierr_lost *l = data;

	/* the midlayer's own (EH, ioctl) are not the reader's */
	if (cmd->submitter != SUBMITTED_BY_BLOCK_LAYER)
		return true;
	/* scsi_done() without it (its export is not for GPL-only users) */
	if (test_and_set_bit(SCMD_STATE_COMPLETE, &cmd->state))
		return true;
	set_host_byte(cmd, DID_NO_CONNECT);
	blk_mq_complete_request(scsi_cmd_to_rq(cmd));
	l->failed++;
	return true;
}

static void pcierr_fail_host(struct device *dev, struct pcierr_lost *l)
{
	struct Scsi_Host *shost;

	/* not scsi_is_host_device(): not for GPL-only symbol_get() users */
	if (!dev->type || strcmp(dev->type->name, "scsi_host"))
		return;
	/* not dev_to_shost(): it calls SCSI directly */
	shost = container_of(dev, struct Scsi_Host, shost_gendev);
	/* a host not running (being removed, in recovery) is left alone */
	if (l->block(shost)) {
		l->unblock(shost, SDEV_RUNNING);
		return;
	}
	l->busy_iter(shost, pcierr_fail_cmd, l);
	l->unblock(shost, SDEV_TRANSPORT_OFFLINE);
}

static bool pcierr_fail_rq(struct request *rq, void *data)
{
	struct pcierr_lost *l = data;

	if (rq->q != l->q || blk_mq_rq_state(rq) != MQ_RQ_IN_FLIGHT)
		return true;
	/*
	 * Not the driver's completion: its status is the device's answer,
	 * which never came (virtio_blk would take what the byte holds for
	 * success). What the driver would free itself for such a request (a
	 * chained scatterlist of a large one) is left behind.
	 */
	blk_mq_end_request(rq, BLK_STS_IOERR);
	l->failed++;
	return true;
}

/* A disk whose driver is blk-mq itself (virtio_blk): its requests */
static void pcierr_fail_disk(struct device *dev, struct pcierr_lost *l)
{
	struct gendisk *disk = dev_to_disk(dev);

	l->q = disk->queue;
	if (!l->q || !l->q->tag_set)
		return;
	/* no queue_rq() running, so none is completing its own request */
	blk_mq_quiesce_queue(l->q);
	blk_mq_tagset_busy_iter(l->q->tag_set, pcierr_fail_rq, l);
	blk_mq_unquiesce_queue(l->q);
}

static int pcierr_fail_child(struct device *dev, void *data)
{
	/* not disk_type (not exported): its name */
	if (dev->type && !strcmp(dev->type->name, "disk"))
		pcierr_fail_disk(dev, data);
	else
		pcierr_fail_host(dev, data);
	return 0;
}

static int pcierr_fail_virtio(struct device *dev, void *data)
{
	struct pcierr_lost *l = data;
	struct virtio_device *vdev;

	if (!dev->bus || strcmp(dev->bus->name, "virtio"))
		return 0;
	vdev = dev_to_virtio(dev);
	device_lock(dev);
	if (dev->driver) {
		l->brk(vdev);
		/* a device that does not answer touches no memory */
		if (l->present)
			l->reset(vdev);
		device_for_each_child(dev, l, pcierr_fail_child);
	}
	device_unlock(dev);
	return 0;
}

/*
 * @pdev is marked disconnected and about to be removed. Without locks
 * (the device lock of @pdev is taken here); may sleep.
 */
void pcierr_fail_lost_io(struct pci_dev *pdev)
{
	struct pcierr_lost l = { };

	if (!pcierr_lost_get(&l))
		goto out;
	l.present = pcierr_present(pdev);
	device_lock(&pdev->dev);
	/* bound to a virtio transport: its virtio device is a child */
	if (pdev->dev.driver)
		device_for_each_child(&pdev->dev, &l, pcierr_fail_virtio);
	device_unlock(&pdev->dev);
	if (l.failed)
		pci_info(pdev, "pcierr: %d commands lost in the freeze failed (device gone)\n",
			 l.failed);
out:
	pcierr_lost_put(&l);
}
