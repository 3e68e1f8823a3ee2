import Foundation
import TestSupport
import Testing

/// An incremental update never touches signed bytes, so a signature made before an append still
/// verifies after it (it then covers the revision it signed, as for any later form fill).
@Suite struct SignedTargetTests {
    static let sign = """
        import sys
        from pyhanko.sign import signers
        from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
        signer = signers.SimpleSigner.load(sys.argv[1], sys.argv[2])
        with open(sys.argv[3], "rb") as f:
            out = signers.sign_pdf(IncrementalPdfFileWriter(f), signers.PdfSignatureMetadata(field_name="Sig1"), signer=signer)
            open(sys.argv[4], "wb").write(out.getbuffer())
        """

    static let validate = """
        import sys, logging
        logging.disable(logging.CRITICAL)
        from pyhanko.pdf_utils.reader import PdfFileReader
        from pyhanko.sign.validation import validate_pdf_signature
        from pyhanko_certvalidator import ValidationContext
        from pyhanko.keys import load_cert_from_pemder
        context = ValidationContext(trust_roots=[load_cert_from_pemder(sys.argv[1])])
        with open(sys.argv[2], "rb") as f:
            status = validate_pdf_signature(PdfFileReader(f).embedded_signatures[0], context)
            print(status.intact, status.valid, status.coverage.name)
        """

    @Test func aSignatureStaysValidAfterAnAppend() throws {
        let scratch = try Scratch()
        let key = scratch.path + "/key.pem", cert = scratch.path + "/cert.pem"
        _ = try PDFReaders.succeeded("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                                 "-days", "2", "-subj", "/CN=PDFTrapper test signer"])
        let source = try ProducedCorpus.file("ghostscript-4-pages.pdf")
        let target = scratch.path + "/Signed.pdf"
        _ = try Python.run(Self.sign, [key, cert, source, target])
        #expect(try PDFReaders.run("pdfsig", [target]).text.contains("Signature is Valid."))

        try TestImages.make(scratch.path + "/a.jpg")
        let run = try Binary.run(["ingest", "--to", "Signed.pdf", "a.jpg", "--state-dir", scratch.path + "/state"], in: scratch.url)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        try PDFReaders.requireAllAgree(target, pages: 5)
        #expect(try PDFReaders.run("pdfsig", [target]).text.contains("Signature is Valid."))
        #expect(try Python.run(Self.validate, [cert, target]) == "True True ENTIRE_REVISION\n")
    }
}
