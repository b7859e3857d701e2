//! The Win32 calls the platform modules need and std does not make: a file's or folder's access
//! list, set to the user's alone and read back, and a file's identity and change time. The only
//! `unsafe` code of the workspace, each block a plain call whose buffers are owned and sized
//! here.
#![allow(
    unsafe_code,
    reason = "Win32 security and file-information calls have no safe wrapper in std or windows-sys"
)]

use std::io;
use std::os::windows::fs::OpenOptionsExt as _;
use std::os::windows::io::AsRawHandle as _;
use std::path::Path;

use windows_sys::Win32::Foundation::{
    CloseHandle, ERROR_INSUFFICIENT_BUFFER, ERROR_SUCCESS, HANDLE, INVALID_HANDLE_VALUE, LocalFree,
};
use windows_sys::Win32::Security::Authorization::{GetSecurityInfo, SE_FILE_OBJECT};
use windows_sys::Win32::Security::{
    ACCESS_ALLOWED_ACE, ACE_HEADER, ACL, ACL_REVISION, ACL_SIZE_INFORMATION, AclSizeInformation,
    AddAccessAllowedAceEx, CONTAINER_INHERIT_ACE, DACL_SECURITY_INFORMATION, EqualSid, GetAce,
    GetAclInformation, GetLengthSid, GetTokenInformation, InitializeAcl,
    InitializeSecurityDescriptor, IsWellKnownSid, OBJECT_INHERIT_ACE, PSECURITY_DESCRIPTOR, PSID,
    SE_DACL_PROTECTED, SECURITY_DESCRIPTOR, SetKernelObjectSecurity, SetSecurityDescriptorControl,
    SetSecurityDescriptorDacl, TOKEN_QUERY, TOKEN_USER, TokenUser, WinLocalSystemSid,
};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_ALL_ACCESS, FILE_BASIC_INFO, FILE_FLAG_BACKUP_SEMANTICS,
    FILE_FLAG_OPEN_REPARSE_POINT, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE,
    FileBasicInfo, GetFileInformationByHandle, GetFileInformationByHandleEx, READ_CONTROL,
    ReOpenFile, WRITE_DAC,
};
use windows_sys::Win32::System::SystemServices::{
    ACCESS_ALLOWED_ACE_TYPE, SECURITY_DESCRIPTOR_REVISION,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

/// A handle closed when dropped.
struct OwnedHandle(HANDLE);

impl Drop for OwnedHandle {
    fn drop(&mut self) {
        // SAFETY: the handle was opened by this module and is closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// The user the process runs as: its token's `TokenUser`, which holds the SID.
struct CurrentUser {
    /// A `TOKEN_USER` and the SID it points into, in u64s for the alignment.
    buffer: Vec<u64>,
}

impl CurrentUser {
    fn get() -> io::Result<Self> {
        let mut token: HANDLE = std::ptr::null_mut();
        // SAFETY: `token` is a valid out-pointer; the pseudo-handle of the current process
        // needs no closing.
        if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &raw mut token) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let token = OwnedHandle(token);
        let mut needed = 0u32;
        // SAFETY: a size query: no buffer, `needed` receives the size.
        let asked = unsafe {
            GetTokenInformation(token.0, TokenUser, std::ptr::null_mut(), 0, &raw mut needed)
        };
        let error = io::Error::last_os_error();
        if asked != 0 || error.raw_os_error() != Some(ERROR_INSUFFICIENT_BUFFER.cast_signed()) {
            return Err(error);
        }
        let mut buffer = vec![0u64; (needed as usize).div_ceil(8)];
        // SAFETY: `buffer` holds at least `needed` bytes, aligned for TOKEN_USER.
        let filled = unsafe {
            GetTokenInformation(
                token.0,
                TokenUser,
                buffer.as_mut_ptr().cast(),
                needed,
                &raw mut needed,
            )
        };
        if filled == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Self { buffer })
    }

    fn sid(&self) -> PSID {
        // SAFETY: the buffer was filled with a TOKEN_USER by GetTokenInformation.
        unsafe { (*self.buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid }
    }
}

/// An access list with one entry: full access for `user`, inherited by files and folders
/// created below (on a folder).
fn owner_only_acl(user: &CurrentUser) -> io::Result<Vec<u64>> {
    // SAFETY: the SID comes from the token and is valid while `user` lives.
    let sid_length = unsafe { GetLengthSid(user.sid()) };
    let size =
        size_of::<ACL>() + size_of::<ACCESS_ALLOWED_ACE>() - size_of::<u32>() + sid_length as usize;
    let mut acl = vec![0u64; size.div_ceil(8)];
    let size = u32::try_from(acl.len() * 8).map_err(io::Error::other)?;
    // SAFETY: `acl` holds `size` bytes, aligned for an ACL; the SID is valid.
    let built = unsafe {
        InitializeAcl(acl.as_mut_ptr().cast(), size, ACL_REVISION) != 0
            && AddAccessAllowedAceEx(
                acl.as_mut_ptr().cast(),
                ACL_REVISION,
                OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE,
                FILE_ALL_ACCESS,
                user.sid(),
            ) != 0
    };
    if !built {
        return Err(io::Error::last_os_error());
    }
    Ok(acl)
}

/// Sets the owner-only access list on `handle` (opened with `WRITE_DAC`), protected from what
/// its folder would pass down.
fn set_owner_only(handle: HANDLE) -> io::Result<()> {
    let user = CurrentUser::get()?;
    let acl = owner_only_acl(&user)?;
    // SAFETY: plain-data structure, initialized by the call below.
    let mut descriptor: SECURITY_DESCRIPTOR = unsafe { std::mem::zeroed() };
    let pointer: PSECURITY_DESCRIPTOR = (&raw mut descriptor).cast();
    // SAFETY: the descriptor and the ACL are owned here and outlive the calls; the handle is open
    // with WRITE_DAC.
    let set = unsafe {
        InitializeSecurityDescriptor(pointer, SECURITY_DESCRIPTOR_REVISION) != 0
            && SetSecurityDescriptorDacl(pointer, 1, acl.as_ptr().cast(), 0) != 0
            && SetSecurityDescriptorControl(pointer, SE_DACL_PROTECTED, SE_DACL_PROTECTED) != 0
            && SetKernelObjectSecurity(handle, DACL_SECURITY_INFORMATION, pointer) != 0
    };
    if set {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Opens the folder or file at `path` itself (no reparse point followed) with `access`.
#[expect(
    clippy::disallowed_types,
    reason = "a handle for a Win32 call, not a file read or written"
)]
pub(super) fn open_itself(path: &Path, access: u32) -> io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .access_mode(access)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)
}

/// Gives the folder at `path` the owner-only access list, which everything created in it
/// inherits.
pub(super) fn make_dir_owner_only(path: &Path) -> io::Result<()> {
    let folder = open_itself(path, WRITE_DAC | READ_CONTROL)?;
    set_owner_only(folder.as_raw_handle())
}

/// Gives the open `file` the owner-only access list (through a second handle to the same file
/// with `WRITE_DAC`: the path is not looked up again).
#[expect(
    clippy::disallowed_types,
    reason = "the std handle inside an fs_err file, for a Win32 call"
)]
pub(super) fn make_file_owner_only(file: &std::fs::File) -> io::Result<()> {
    // SAFETY: the handle is valid while `file` lives; the new one is closed by OwnedHandle.
    let reopened = unsafe {
        ReOpenFile(
            file.as_raw_handle(),
            WRITE_DAC | READ_CONTROL,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            0,
        )
    };
    if reopened == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    let reopened = OwnedHandle(reopened);
    set_owner_only(reopened.0)
}

/// Whether every entry that allows access to the file or folder at `path` names the user the
/// process runs as, or the system itself (`LocalSystem`, which reads every file anyway, and which
/// Wine adds to every list it gives back): no other person can get in. Deny entries may be there
/// too.
pub(super) fn is_owner_only(path: &Path) -> io::Result<bool> {
    let user = CurrentUser::get()?;
    let object = open_itself(path, READ_CONTROL)?;
    let mut dacl: *mut ACL = std::ptr::null_mut();
    let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: out-pointers are valid; the descriptor is freed below with LocalFree.
    let status = unsafe {
        GetSecurityInfo(
            object.as_raw_handle(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &raw mut dacl,
            std::ptr::null_mut(),
            &raw mut descriptor,
        )
    };
    if status != ERROR_SUCCESS {
        return Err(io::Error::from_raw_os_error(status.cast_signed()));
    }
    let result = (|| {
        // No access list at all lets everyone in.
        if dacl.is_null() {
            return Ok(false);
        }
        let mut size = ACL_SIZE_INFORMATION {
            AceCount: 0,
            AclBytesInUse: 0,
            AclBytesFree: 0,
        };
        // SAFETY: `dacl` points into the descriptor, alive until LocalFree.
        let read = unsafe {
            GetAclInformation(
                dacl,
                (&raw mut size).cast(),
                u32::try_from(size_of::<ACL_SIZE_INFORMATION>()).unwrap_or(u32::MAX),
                AclSizeInformation,
            )
        };
        if read == 0 {
            return Err(io::Error::last_os_error());
        }
        for index in 0..size.AceCount {
            let mut ace: *mut core::ffi::c_void = std::ptr::null_mut();
            // SAFETY: `index` is below the count the ACL gave.
            if unsafe { GetAce(dacl, index, &raw mut ace) } == 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: every ACE starts with an ACE_HEADER.
            let header = unsafe { *ace.cast::<ACE_HEADER>() };
            if u32::from(header.AceType) != ACCESS_ALLOWED_ACE_TYPE {
                continue;
            }
            // SAFETY: an access-allowed ACE's SID starts at `SidStart`.
            let sid: PSID =
                unsafe { (&raw mut (*ace.cast::<ACCESS_ALLOWED_ACE>()).SidStart).cast() };
            // SAFETY: both SIDs are valid for the calls.
            let allowed = unsafe {
                EqualSid(sid, user.sid()) != 0 || IsWellKnownSid(sid, WinLocalSystemSid) != 0
            };
            if !allowed {
                return Ok(false);
            }
        }
        Ok(true)
    })();
    // SAFETY: the descriptor was allocated by GetSecurityInfo.
    unsafe { LocalFree(descriptor.cast()) };
    result
}

/// What identifies an open file and when it changed: the volume's serial number and the file's
/// index on it, its last write and its last change (of data or attributes), in 100 ns since
/// 1601.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs, reason = "described on the type")]
pub(super) struct FileFacts {
    pub(super) volume: u64,
    pub(super) index: u64,
    pub(super) written: i64,
    pub(super) changed: i64,
}

/// The [`FileFacts`] of the open `file`.
#[expect(
    clippy::disallowed_types,
    reason = "the std handle inside an fs_err file, for a Win32 call"
)]
pub(super) fn file_facts(file: &std::fs::File) -> io::Result<FileFacts> {
    let handle = file.as_raw_handle();
    // SAFETY: plain-data out structure for the call.
    let mut information: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is valid while `file` lives.
    if unsafe { GetFileInformationByHandle(handle, &raw mut information) } == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: plain-data out structure for the call.
    let mut basic: FILE_BASIC_INFO = unsafe { std::mem::zeroed() };
    // SAFETY: the buffer is a FILE_BASIC_INFO of the size given.
    let read = unsafe {
        GetFileInformationByHandleEx(
            handle,
            FileBasicInfo,
            (&raw mut basic).cast(),
            u32::try_from(size_of::<FILE_BASIC_INFO>()).unwrap_or(u32::MAX),
        )
    };
    if read == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(FileFacts {
        volume: u64::from(information.dwVolumeSerialNumber),
        index: (u64::from(information.nFileIndexHigh) << 32) | u64::from(information.nFileIndexLow),
        written: basic.LastWriteTime,
        changed: basic.ChangeTime,
    })
}
