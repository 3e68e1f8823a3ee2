import Foundation
import Imaging
import PDFAccess
import TrapperCore

/// `reframe`: a page `find_page` cut from a photo, cut again along other corners from the photo
/// it keeps, with the steps it was first given; the new picture replaces the page's content.
extension EditApply {
    static func reframe(page: Int, corners: [SheetGeometry.Point], _ context: MarkupContext, _ editor: inout PDFPageEditor) throws {
        let index = try pageIndex(page, editor)
        guard let photo = try editor.keptPhoto(ofPage: index), let image = try editor.image(of: photo) else {
            throw PDFPageEditError(.reframe, page: index, .noKeptPhoto)
        }
        let (picture, notes) = try PhotoReframe.cut(photo, image: image, corners: corners, flate: ZlibFlate())
        var kept = photo
        kept.corners = corners
        // the curves it was cut along belong to its corners: moved, it is cut straight
        kept.outline = photo.outline(cutAt: corners)
        try editor.reframe(index, to: picture, photo: kept, date: context.date)
        context.notes.append("page \(page): " + notes.joined(separator: ", "))
        // Its text layer went with the old content: the page is read again.
        if !photo.ocr.isEmpty, let reference = try editor.reference(ofPage: index) {
            context.readAgain.append((reference, photo.ocr))
        }
    }
}
