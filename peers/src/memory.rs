//! This process's memory, as Linux reports it in `/proc/self/status`.

/// Resident memory now and at its peak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Resident memory now (`VmRSS`), in bytes.
    pub resident_bytes: u64,
    /// Peak resident memory since the process started (`VmHWM`), in bytes, if reported.
    pub peak_bytes: Option<u64>,
}

impl Memory {
    /// Read this process's memory; `None` where `/proc/self/status` does not exist or says
    /// nothing of it.
    pub fn read() -> Option<Self> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        Some(Self {
            resident_bytes: field(&status, "VmRSS:")?,
            peak_bytes: field(&status, "VmHWM:"),
        })
    }
}

/// Return the value of a `Name:   1234 kB` line, in bytes.
fn field(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    let mut words = line[name.len()..].split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => Some(value * 1024),
        None => Some(value),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn reads_kilobytes() {
        let status = "Name:\tpeers\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(field(status, "VmHWM:"), Some(2048 * 1024));
        assert_eq!(field(status, "VmRSS:"), Some(1024 * 1024));
        assert_eq!(field(status, "VmSwap:"), None);
    }
}
