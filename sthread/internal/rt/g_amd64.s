#include "textflag.h"

// func getg() uintptr
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET

// func fpcallers(pcs []uintptr) int
//
// Walks the frame pointer chain of the calling goroutine from the frame of
// fpcallers' caller and stores the return addresses found, at most
// len(pcs): pcs[0] is where the caller's caller called the caller. The
// function makes no call, so the stack cannot move under it.
TEXT ·fpcallers(SB),NOSPLIT,$0-32
	MOVQ pcs_base+0(FP), DI
	MOVQ pcs_len+8(FP), CX
	MOVQ BP, AX
	XORQ DX, DX
loop:
	CMPQ DX, CX
	JGE done
	TESTQ AX, AX
	JZ done
	MOVQ 8(AX), BX
	TESTQ BX, BX
	JZ done
	MOVQ BX, (DI)(DX*8)
	MOVQ 0(AX), AX
	INCQ DX
	JMP loop
done:
	MOVQ DX, ret+24(FP)
	RET
