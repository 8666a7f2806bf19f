//! `slate_snapshot_info`'s reading: the envelope, the checksum and the
//! kind's header section of the snapshot at the start of a buffer,
//! without the body's invariants and without allocating.

use crate::slotmap::MAX_COLUMNS;
use crate::Error;

use super::envelope::{
    open, Fields, KIND_MAP, KIND_SLOTMAP, KIND_SPARSE, MAPE, MAPH, SLTC, SLTH, SLTS, SPSC, SPSH,
    SPSK,
};

/// What a snapshot says of itself (`slate_snapshot_info_s`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Info {
    pub(crate) length: u64,
    pub(crate) count: u64,
    pub(crate) kind: u32,
    pub(crate) format_major: u32,
    pub(crate) format_minor: u32,
    pub(crate) notes: u32,
    pub(crate) values: u32,
    pub(crate) columns: u32,
    pub(crate) sizes: [u32; MAX_COLUMNS],
    pub(crate) slots: u32,
}

/// Reads the snapshot that starts at `bytes` (more may follow it).
pub(crate) fn info(bytes: &[u8]) -> Result<Info, Error> {
    let env = open(bytes, false, None)?;
    let mut s = env.sections();
    let mut info = Info {
        length: env.bytes.len() as u64,
        kind: env.kind,
        format_major: 1,
        format_minor: env.minor as u32,
        notes: env.notes,
        ..Info::default()
    };
    match env.kind {
        KIND_MAP => {
            let p = s.expect(MAPH)?;
            let mut f = Fields::new(p);
            info.count = f.u64()?;
            info.values = f.u32()?;
            if p.len() != 16 || f.u32()? != 0 || !(1..=2).contains(&info.values) {
                return Err(Error::Corrupt);
            }
            s.expect(MAPE)?;
        }
        KIND_SLOTMAP => {
            let p = s.expect(SLTH)?;
            let mut f = Fields::new(p);
            info.columns = f.u32()?;
            info.count = f.u32()? as u64;
            info.slots = f.u32()?;
            let ok = (1..=MAX_COLUMNS as u32).contains(&info.columns)
                && p.len() == 44 + 4 * info.columns as usize;
            if !ok {
                return Err(Error::Corrupt);
            }
            let mut rest = Fields::new(&p[40..]);
            if rest.u32()? != 0 {
                return Err(Error::Corrupt);
            }
            read_sizes(&mut rest, &mut info)?;
            s.expect(SLTS)?;
            for _ in 0..info.columns {
                s.expect(SLTC)?;
            }
        }
        KIND_SPARSE => {
            let p = s.expect(SPSH)?;
            let mut f = Fields::new(p);
            info.columns = f.u32()?;
            info.count = f.u32()? as u64;
            if info.columns > MAX_COLUMNS as u32 || p.len() != 8 + 4 * info.columns as usize {
                return Err(Error::Corrupt);
            }
            read_sizes(&mut f, &mut info)?;
            s.expect(SPSK)?;
            for _ in 0..info.columns {
                s.expect(SPSC)?;
            }
        }
        _ => return Err(Error::Unsupported),
    }
    s.finish()?;
    Ok(info)
}

fn read_sizes(f: &mut Fields<'_>, info: &mut Info) -> Result<(), Error> {
    for size in &mut info.sizes[..info.columns as usize] {
        *size = f.u32()?;
        if *size == 0 {
            return Err(Error::Corrupt);
        }
    }
    Ok(())
}
