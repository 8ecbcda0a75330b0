/*
 * objc_msgSend for the Darwin stand-in, x86-64 System V (Linux ELF).
 *
 * As Apple's (https://developer.apple.com/documentation/objectivec/1456712-objc_msgsend): the caller
 * passes the receiver in %rdi, the selector in %rsi and the method's own arguments where the method
 * expects them; this finds the method (standin_msg_lookup in standin_objc.c) and jumps to it with every
 * argument register (%rdi %rsi %rdx %rcx %r8 %r9, %xmm0-7, %al for a variadic callee) and the stack as
 * it found them, so the method returns straight to the caller. A nil receiver returns 0 in %rax, %rdx,
 * %xmm0 and %xmm1 without a lookup. Struct returns in memory (objc_msgSend_stret) are not handled.
 */
        .text
        .globl  objc_msgSend
        .type   objc_msgSend, @function
        .p2align 4
objc_msgSend:
        .cfi_startproc
        testq   %rdi, %rdi
        je      .Lnil
        pushq   %rbp                    /* %rsp is now 16-byte aligned */
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        subq    $192, %rsp              /* 8 x 16 (xmm) + 8 x 8 (gprs): stays aligned */
        movdqa  %xmm0, 0(%rsp)
        movdqa  %xmm1, 16(%rsp)
        movdqa  %xmm2, 32(%rsp)
        movdqa  %xmm3, 48(%rsp)
        movdqa  %xmm4, 64(%rsp)
        movdqa  %xmm5, 80(%rsp)
        movdqa  %xmm6, 96(%rsp)
        movdqa  %xmm7, 112(%rsp)
        movq    %rdi, 128(%rsp)
        movq    %rsi, 136(%rsp)
        movq    %rdx, 144(%rsp)
        movq    %rcx, 152(%rsp)
        movq    %r8, 160(%rsp)
        movq    %r9, 168(%rsp)
        movq    %rax, 176(%rsp)
        call    standin_msg_lookup      /* (self, _cmd) are already in %rdi, %rsi */
        movq    %rax, %r11              /* the method: %r11 is scratch, never an argument */
        movdqa  0(%rsp), %xmm0
        movdqa  16(%rsp), %xmm1
        movdqa  32(%rsp), %xmm2
        movdqa  48(%rsp), %xmm3
        movdqa  64(%rsp), %xmm4
        movdqa  80(%rsp), %xmm5
        movdqa  96(%rsp), %xmm6
        movdqa  112(%rsp), %xmm7
        movq    128(%rsp), %rdi
        movq    136(%rsp), %rsi
        movq    144(%rsp), %rdx
        movq    152(%rsp), %rcx
        movq    160(%rsp), %r8
        movq    168(%rsp), %r9
        movq    176(%rsp), %rax
        leave
        .cfi_def_cfa %rsp, 8
        jmp     *%r11                   /* a tail jump: the method returns to our caller */
.Lnil:
        xorl    %eax, %eax
        xorl    %edx, %edx
        pxor    %xmm0, %xmm0
        pxor    %xmm1, %xmm1
        ret
        .cfi_endproc
        .size   objc_msgSend, .-objc_msgSend

        .section .note.GNU-stack,"",@progbits
