/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pseries platform error log (ibm,slot-error-detail: the shim's
 * EVENT and a DISABLE's OP_DONE carry its bytes), decoded for the journal.
 *
 * One decoder serves the module and pcierrd: the shim's pure pseries part
 * (kernel/pcierr_shim/pseries-rtas.c, GPL-2.0 OR MIT, no kernel or
 * firmware calls; built into pcierrd by daemon.mk and tested on the host
 * by cksuite-pseries.c). A copy here would be a second reading of the
 * same firmware bytes that could disagree with the kernel's own log
 * lines; the decoder's declarations come from its one header, and only
 * this header reaches into the module's tree.
 *
 * What pcierrd uses: struct pseries_log_header, pseries_log_decode(),
 * pseries_log_severity_name().
 */
#ifndef PCIERRD_RTAS_LOG_H
#define PCIERRD_RTAS_LOG_H

#include "../kernel/pcierr_shim/pseries-rtas.h"

#endif /* PCIERRD_RTAS_LOG_H */
