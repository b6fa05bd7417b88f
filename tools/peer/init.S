/* tools/peer/init.S: the Linux peer's /init.  refscale and rcuscale run
 * as built-in kthreads and power the machine off when done; init only has
 * to exist and stay out of their way, so it sleeps in pause() for ever. */
	.globl	_start
	.text
_start:
1:	movl	$34, %eax		/* __NR_pause */
	syscall
	jmp	1b
