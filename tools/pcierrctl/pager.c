// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pager (see pager.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pager.h"

static pid_t pager_pid = -1;
static int saved_stdout = -1;

bool pager_have(void)
{
	return pager_pid > 0;
}

/* the pager could not be run: copy the output through as it is */
_Noreturn static void copy_through(void)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		ssize_t done = 0;

		while (n > 0 && done < n) {
			ssize_t w = write(STDOUT_FILENO, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(EXIT_FAILURE);
			done += w;
		}
	}
	_exit(EXIT_SUCCESS);
}

static int parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	return -EINVAL;
}

/* "less" or ".../less", with or without options */
static bool is_less(const char *cmd)
{
	size_t n = strcspn(cmd, " \t");
	const char *base = memrchr(cmd, '/', n);

	base = base ? base + 1 : cmd;
	return (size_t)(cmd + n - base) == 4 && strncmp(base, "less", 4) == 0;
}

int pager_plan(const char *pager, const char *secure_env, bool privileged,
	       struct pager_plan *ret)
{
	int r = 0, secure = -1;

	*ret = (struct pager_plan) {};
	if (pager && (!*pager || strcmp(pager, "cat") == 0)) {
		ret->none = true;
		return 0;
	}
	if (secure_env) {
		secure = parse_bool(secure_env);
		if (secure < 0) {
			r = -EINVAL;
			secure = 1;
		}
		ret->secure = secure;
		ret->command = pager;	/* set explicitly: trusted */
		return r;
	}
	ret->secure = privileged;
	/* privileged: only less, which alone knows LESSSECURE */
	ret->command = pager && (!privileged || is_less(pager)) ? pager : NULL;
	return 0;
}

void pager_open(bool no_pager)
{
	struct pager_plan plan;
	const char *pager;
	int fd[2];
	pid_t pid;

	if (no_pager || pager_pid > 0 || !isatty(STDOUT_FILENO))
		return;
	pager = getenv("PCIERRCTL_PAGER");
	if (!pager)
		pager = getenv("PAGER");
	(void)pager_plan(pager, getenv("PCIERRCTL_PAGERSECURE"),
			 geteuid() == 0 || getuid() == 0 || geteuid() != getuid(), &plan);
	if (plan.none)
		return;
	pager = plan.command;

	fflush(stdout);
	if (pipe2(fd, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) {
		/* the pager reads the pipe, writes to the terminal */
		if (dup2(fd[0], STDIN_FILENO) < 0)
			_exit(EXIT_FAILURE);
		close(fd[0]);
		close(fd[1]);
		/* quit with one screen, colours, Ctrl-C quits */
		setenv("LESS", "FRXMK", 0);
		setenv("LESSCHARSET", "utf-8", 0);
		/* privileged: no shell, editor or file commands in less */
		if (plan.secure && setenv("LESSSECURE", "1", 1) < 0)
			_exit(EXIT_FAILURE);
		/* never outlive pcierrctl's output */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (pager)
			execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		execlp("less", "less", (char *)NULL);
		/* more has no secure mode */
		if (!plan.secure)
			execlp("more", "more", (char *)NULL);
		copy_through();
	}
	saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (dup2(fd[1], STDOUT_FILENO) < 0) {
		close(fd[0]);
		close(fd[1]);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return;
	}
	close(fd[0]);
	close(fd[1]);
	pager_pid = pid;
}

void pager_close(void)
{
	if (pager_pid <= 0)
		return;
	fflush(stdout);
	/* end of the output: the pager sees EOF */
	if (saved_stdout >= 0) {
		dup2(saved_stdout, STDOUT_FILENO);
		close(saved_stdout);
		saved_stdout = -1;
	} else
		close(STDOUT_FILENO);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}
