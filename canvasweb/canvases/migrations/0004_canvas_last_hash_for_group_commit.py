"""Canvas.last_hash: the head of each canvas's hash-chained change log, kept on the canvas row so a
(group) commit links its entries without reading the log."""

from django.db import migrations, models


def fill_last_hash(apps, schema_editor):
    Canvas = apps.get_model("canvases", "Canvas")
    ChangeLogEntry = apps.get_model("history", "ChangeLogEntry")
    for canvas in Canvas.objects.all().only("pk").iterator():
        last = (
            ChangeLogEntry.objects.filter(canvas_id=canvas.pk)
            .order_by("-revision", "-seq")
            .values_list("hash", flat=True)
            .first()
        )
        if last:
            Canvas.objects.filter(pk=canvas.pk).update(last_hash=last)


class Migration(migrations.Migration):
    dependencies = [
        ("canvases", "0003_membership_user_protect_receipt_created_index"),
        ("history", "0002_undo_step"),
    ]

    operations = [
        migrations.AddField(
            model_name="canvas",
            name="last_hash",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.RunPython(fill_last_hash, migrations.RunPython.noop),
    ]
