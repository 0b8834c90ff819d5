//! Screenshots: the window's pixels written to a PNG, whole or not at all (`crate::output`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::ViewError;

/// Write an RGBA image of `width` × `height` pixels whose rows run from the bottom up (as
/// OpenGL reads them) to `path` as an RGB PNG.
///
/// The file is written beside `path` under a temporary name and renamed into place
/// ([`crate::output::write_whole`]), so a reader never sees a partial file; on failure nothing
/// is left behind.
pub(crate) fn write_png(
    path: &Path,
    width: u32,
    height: u32,
    bottom_up_rgba: &[u8],
) -> Result<(), ViewError> {
    let row = width as usize * 4;
    if bottom_up_rgba.len() != row * height as usize || width == 0 || height == 0 {
        return Err(ViewError::ScreenData {
            path: path.to_path_buf(),
            bytes: bottom_up_rgba.len(),
            width,
            height,
        });
    }
    let mut rgb = Vec::with_capacity(width as usize * height as usize * 3);
    for line in bottom_up_rgba.chunks_exact(row).rev() {
        for pixel in line.chunks_exact(4) {
            rgb.extend_from_slice(&pixel[..3]);
        }
    }
    Ok(crate::output::write_whole(path, |w| {
        encode(w, width, height, &rgb)
    })?)
}

fn encode(w: &mut dyn Write, width: u32, height: u32, rgb: &[u8]) -> io::Result<()> {
    let mut encoder = png::Encoder::new(w, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    let mut writer = encoder.write_header().map_err(io::Error::other)?;
    writer.write_image_data(rgb).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}

/// Return a new file name in `dir` for a screenshot of the scene `stem`:
/// `toibox-STEM-N.png` with the first `N` from 1 not taken.
#[must_use]
pub(crate) fn unique_name(dir: &Path, stem: &str) -> PathBuf {
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    (1..)
        .map(|n| dir.join(format!("toibox-{stem}-{n}.png")))
        .find(|p| !p.exists())
        .expect("some number is free")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::OutputError;

    #[test]
    fn a_png_is_written_top_down_and_read_back() {
        let dir = std::env::temp_dir().join(format!("toibox-shot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("two.png");
        // Two rows, bottom up: the bottom row red, the top row blue
        let pixels = [255, 0, 0, 255, 0, 0, 255, 128];
        write_png(&path, 1, 2, &pixels).unwrap();
        let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (1, 2));
        assert_eq!(&buf[..6], &[0, 0, 255, 255, 0, 0]);
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no partial file left"
        );
        assert_eq!(unique_name(&dir, "a b"), dir.join("toibox-a_b-1.png"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unwritable_place_is_an_error_naming_it() {
        let path = Path::new("/no/such/dir/shot.png");
        let error = write_png(path, 1, 1, &[0, 0, 0, 255]).unwrap_err();
        assert!(
            matches!(error, ViewError::Output(OutputError::Write { .. })),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with("/no/such/dir/shot.png: cannot write"),
            "{error}"
        );
        assert!(
            std::error::Error::source(&error).is_some(),
            "keeps the io error"
        );
        let error = write_png(path, 2, 1, &[0, 0, 0, 255]).unwrap_err();
        assert!(
            matches!(
                error,
                ViewError::ScreenData {
                    bytes: 4,
                    width: 2,
                    ..
                }
            ),
            "{error:?}"
        );
    }
}
