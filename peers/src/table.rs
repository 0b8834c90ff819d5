//! Aligned text tables: the first column to the left, the others to the right.

/// A table of text cells under a header row.
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Create a table with these column titles.
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Self {
        Self {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Append a row; missing cells are left blank, extra ones are dropped.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Return the table as lines of text, each column as wide as its widest cell.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let cell = |row: &[String], k: usize| row.get(k).map_or("", String::as_str).to_owned();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (k, width) in widths.iter_mut().enumerate() {
                *width = (*width).max(cell(row, k).chars().count());
            }
        }
        let line = |row: &[String]| {
            let mut out = String::new();
            for (k, width) in widths.iter().enumerate().take(columns) {
                let text = cell(row, k);
                if k == 0 {
                    out.push_str(&format!("{text:<width$}"));
                } else {
                    out.push_str(&format!("  {text:>width$}"));
                }
            }
            out.trim_end().to_owned()
        };
        let mut text = line(&self.header);
        text.push('\n');
        for row in &self.rows {
            text.push_str(&line(row));
            text.push('\n');
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::Table;

    #[test]
    fn columns_line_up() {
        let mut table = Table::new(["engine", "ms"]);
        table.row(vec!["a".into(), "1.5".into()]);
        table.row(vec!["longer".into(), "12.25".into()]);
        assert_eq!(
            table.render(),
            "engine     ms\na         1.5\nlonger  12.25\n"
        );
    }
}
