/* A stand-in for Windows' bcryptprimitives.dll, for running the release binaries under Wine 8
 * only (tests/release/cross.sh puts it beside them; it is never shipped). Rust's standard library
 * for x86_64-pc-windows-gnu imports ProcessPrng from that DLL, which Windows 10 and later have and
 * Wine 8 does not, so a binary that imports it does not start there. ProcessPrng fills the buffer
 * with random bytes and returns TRUE; here BCryptGenRandom of Wine's bcrypt.dll provides them. */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
    while (size > 0) {
        ULONG chunk = size > 0x40000000 ? 0x40000000 : (ULONG)size;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) {
            return FALSE;
        }
        data += chunk;
        size -= chunk;
    }
    return TRUE;
}
