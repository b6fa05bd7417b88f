/*
 * tests/host/timer_shim/kernel/sched.h - host stand-in for kernel/sched.h:
 * what kernel/timer.c's sleeping half (schedule_timeout(), msleep())
 * names.  The host test drives the timer lists only; these are stubs
 * that fail the test if called.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/spinlock.h"

#define TASK_RUNNING		0x0
#define TASK_UNINTERRUPTIBLE	0x2
#define MAX_SCHEDULE_TIMEOUT	((long)(~0ul >> 1))

struct task {
	long state;
};

struct task *shim_current(void);
#define current shim_current()
#define __set_current_state(s)	WRITE_ONCE(current->state, (s))

extern bool sched_running;
void schedule(void);
int wake_up_process(struct task *t);
void __might_sleep(const char *file, int line);
#define might_sleep() __might_sleep(__FILE__, __LINE__)
long schedule_timeout(long timeout);
long schedule_timeout_uninterruptible(long timeout);
void msleep(unsigned int ms);
