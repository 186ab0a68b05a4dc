/*
 * arm64 entry.  QEMU -M virt (no EL2/EL3) enters _start at EL1, MMU off.
 * CPU 1 enters secondary_entry from PSCI CPU_ON.  Also: the exception
 * vectors, which report and power off.
 */
	.section .text.boot, "ax"
	.globl _start
_start:
	ldr	x0, =__bss_start		/* zero .bss (MMU off: aligned) */
	ldr	x1, =__bss_end
1:	cmp	x0, x1
	b.hs	2f
	stp	xzr, xzr, [x0], #16
	b	1b
2:	ldr	x0, =stack0_top
	mov	sp, x0
	ldr	x0, =vectors
	msr	vbar_el1, x0
	isb
	bl	main
3:	wfe
	b	3b

	.globl secondary_entry
secondary_entry:
	ldr	x0, =stack1_top
	mov	sp, x0
	ldr	x0, =vectors
	msr	vbar_el1, x0
	isb
	bl	secondary_main
4:	wfe
	b	4b

	.macro vec n
	.align 7
	mov	x0, #\n
	mrs	x1, esr_el1
	mrs	x2, elr_el1
	mrs	x3, far_el1
	b	arm_trap
	.endm

	.align 11
vectors:
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	vec \n
	.endr

	.bss
	.align 4
	.skip 16384
stack0_top:
	.skip 16384
stack1_top:

	.section .note.GNU-stack, "", %progbits
