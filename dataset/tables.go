package dataset

// The tables of a dataset and their folders. A dataset at a location DIR
// (a directory or a bucket prefix) has one folder per table, each holding
// part files (package parts writes them):
//
//	DIR/pages/part-00000.parquet   DIR/spaces/part-00000.parquet   DIR/blobs/part-00000.parquet   …
//
// Readers take every *.parquet file below a table's folder, at any depth —
// DuckDB read_parquet('DIR/pages/**/*.parquet'), pyarrow
// dataset("DIR/pages") — and never a name starting with "_" or "."
// (pyarrow and Spark skip those by themselves).
const (
	// PagesDir is the folder of the pages table ([PageRow]) inside a
	// dataset.
	PagesDir = "pages"
	// SpacesDir is the folder of the spaces table ([SpaceRow]).
	SpacesDir = "spaces"
	// BlobsDir is the folder of the blobs table ([BlobRow]).
	BlobsDir = "blobs"
	// ElementsDir is the folder of the elements table ([ElementRow]).
	ElementsDir = "elements"
	// OracleDir is the folder of the oracle table ([OracleRow]).
	OracleDir = "oracle"
	// StepsDir is the folder of the steps table ([StepRow]).
	StepsDir = "steps"
	// PartExt is the extension of a complete part file.
	PartExt = ".parquet"
	// PagesGlob, SpacesGlob, BlobsGlob, ElementsGlob and OracleGlob match
	// every part of each table relative to the dataset directory, in the **
	// syntax of DuckDB and Spark.
	PagesGlob    = PagesDir + "/**/*" + PartExt
	SpacesGlob   = SpacesDir + "/**/*" + PartExt
	BlobsGlob    = BlobsDir + "/**/*" + PartExt
	ElementsGlob = ElementsDir + "/**/*" + PartExt
	OracleGlob   = OracleDir + "/**/*" + PartExt
	// StepsGlob matches every part of the steps table.
	StepsGlob = StepsDir + "/**/*" + PartExt
)
