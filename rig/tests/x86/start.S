/*
 * x86_64 entry.  QEMU's Multiboot v1 loader (-kernel) loads the flat
 * image at 1 MiB and enters start32 in 32-bit protected mode, paging off.
 * We identity-map the first 1 GiB with 2 MiB pages, enter long mode and
 * call main().  Also: the second CPU's way in, the exception stubs and the
 * SVM guest's code.
 */
#define MB_MAGIC	0x1BADB002
#define MB_FLAGS	0x00010000	/* a.out kludge: addresses below */

/*
 * From 32-bit protected mode into long mode on boot_pml4: PAE, EFER.LME,
 * then paging.  Both CPUs come this way; the caller's far jump follows.
 */
.macro enter_long_mode
	mov	$boot_pml4, %eax
	mov	%eax, %cr3
	mov	%cr4, %eax
	or	$0x20, %eax			/* CR4.PAE */
	mov	%eax, %cr4
	mov	$0xC0000080, %ecx		/* EFER.LME */
	rdmsr
	or	$0x100, %eax
	wrmsr
	mov	%cr0, %eax
	or	$0x80010001, %eax		/* CR0.PG|WP|PE */
	mov	%eax, %cr0
.endm

/* Every data segment register: the flat data descriptor, GDT entry 2. */
.macro load_data_segments
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	%ax, %fs
	mov	%ax, %gs
.endm

	.section .text.boot, "ax"
	.code32
	.align 4
mb_header:
	.long MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)
	.long mb_header		/* header_addr */
	.long mb_header		/* load_addr: the image starts here */
	.long _edata		/* load_end_addr */
	.long _end		/* bss_end_addr */
	.long start32		/* entry_addr */

	.globl start32
start32:
	cli
	mov	$__bss_start, %edi		/* zero .bss */
	mov	$_end, %ecx
	sub	%edi, %ecx
	xor	%eax, %eax
	rep stosb

	mov	$boot_pd, %edi			/* 512 x 2 MiB, P|RW|PS */
	mov	$0x83, %eax
	mov	$512, %ecx
1:	mov	%eax, (%edi)
	add	$0x200000, %eax
	add	$8, %edi
	loop	1b
	movl	$boot_pd + 3, boot_pdpt
	movl	$boot_pdpt + 3, boot_pml4

	enter_long_mode
	lgdt	gdt_ptr
	ljmp	$0x08, $start64

	.code64
start64:
	load_data_segments
	mov	$stack_top, %rsp
	call	main
2:	hlt
	jmp	2b

/*
 * The second CPU's way in: ap_tramp..ap_tramp_end is copied to AP_TRAMP
 * (0x8000), where the SIPI starts it in real mode (CS 0x800, IP 0).  It
 * enters protected mode with the GDT below (0x18: 32-bit code), then
 * long mode on the same page tables, and calls ap_main() on its own
 * stack.  Only the 16-bit part runs from the copy: its addresses are
 * AP_TRAMP-relative; the 32-bit part uses absolute addresses only.
 */
#define AP_TRAMP	0x8000
	.code16
	.globl ap_tramp, ap_tramp_end
ap_tramp:
	cli
	xor	%ax, %ax
	mov	%ax, %ds
	lgdtl	AP_TRAMP + (ap_gdt_ptr - ap_tramp)
	mov	%cr0, %eax
	or	$1, %eax			/* CR0.PE */
	mov	%eax, %cr0
	ljmpl	$0x18, $ap32
ap_gdt_ptr:
	.word	gdt_end - gdt - 1
	.long	gdt
ap_tramp_end:

	.code32
ap32:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	enter_long_mode
	ljmp	$0x08, $ap64

	.code64
ap64:
	load_data_segments
	mov	$ap_stack_top, %rsp
	call	ap_main
3:	hlt
	jmp	3b

/* Exception stubs, 16 bytes apart: push a zero error code if the CPU
 * pushed none, then the vector, then x86_trap(frame). */
	.macro stub n
	.align 16
	.if (\n == 8) || (\n >= 10 && \n <= 14) || (\n == 17) || (\n == 21) || (\n >= 29 && \n <= 30)
	.else
	pushq	$0
	.endif
	pushq	$\n
	jmp	trap_common
	.endm

	.align 16
	.globl trap_stubs
trap_stubs:
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	stub \n
	.endr
trap_common:
	mov	%rsp, %rdi
	call	x86_trap

/* The SVM guest: read the quadword at the address in RBX (RBX is not
 * switched by VMRUN, so the host sets it), then VMMCALL (intercepted);
 * the host finds the value in the VMCB's RAX. */
	.globl guest_entry
guest_entry:
	mov	(%rbx), %rax
	vmmcall
	ud2

	.section .data
	.align 16
	.globl gdt
gdt:	.quad 0
	.quad 0x00AF9A000000FFFF	/* 0x08: 64-bit code, DPL 0 */
	.quad 0x00CF92000000FFFF	/* 0x10: data */
	.quad 0x00CF9A000000FFFF	/* 0x18: 32-bit code (the AP's way in) */
gdt_end:
gdt_ptr:
	.word gdt_end - gdt - 1
	.long gdt

	.section .bss
	.align 4096
	.globl boot_pml4, boot_pdpt, boot_pd
boot_pml4:	.skip 4096
boot_pdpt:	.skip 4096
boot_pd:	.skip 4096
	.skip 16384
stack_top:
	.skip 16384
ap_stack_top:

	.section .note.GNU-stack, "", @progbits
